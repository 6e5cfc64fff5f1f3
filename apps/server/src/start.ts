import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CoreConfig, MailpieceCore } from "@mailpiece/core";
import { createMailpieceCore } from "@mailpiece/core";
import type { EmailOutbox } from "@mailpiece/email-outbox";
import { createEmailOutbox } from "@mailpiece/email-outbox";
import { createSmtpEmailSender } from "@mailpiece/email-smtp";
import { createSafeFetcher, createSafePoster } from "@mailpiece/fetch-https";
import { createSimulatedFlorist } from "@mailpiece/florist-simulated";
import { createPdfWorkerPool } from "@mailpiece/pdf-work";
import type { BlobStore, EmailSender, Store } from "@mailpiece/ports";
import { systemClock } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import {
  createFileBlobStore,
  createFileStore,
  createMemoryBlobStore,
  createMemoryStore,
} from "@mailpiece/store-unstorage";
import { serve } from "srvx";
import { embeddedAddresses, loqateAddresses } from "./addresses.ts";
import { checkoutPayments } from "./checkout.ts";
import type { S3Config, ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { createLogger, errorFields } from "./logger.ts";
import { createRails, deploymentSecret } from "./rails.ts";
import { createServerApp } from "./server-app.ts";

export const VERSION = "0.1.0";

export interface RunningServer {
  /** The base URL the server listens on, e.g. http://127.0.0.1:3000 */
  url: string;
  core: MailpieceCore;
  /** Stops accepting connections, finishes in-flight requests, then closes the stores. */
  close(): Promise<void>;
}

/**
 * Opens the configured stores. The file store is the embedded default; it lives under DATA_DIR. Documents are kept
 * with the records (in the file, Redis or Postgres store's own blob store) unless BLOB_STORE=s3 names object storage.
 */
export async function openStores(config: ServerConfig): Promise<{ store: Store; blobs: BlobStore }> {
  const records = await openRecords(config);
  try {
    const blobs = config.blobs.kind === "s3" ? await openS3(config.blobs.s3) : await openBlobs(config);
    return { store: records, blobs };
  } catch (error) {
    await records.close();
    throw error;
  }
}

async function openRecords(config: ServerConfig): Promise<Store> {
  if (config.store === "memory") return createMemoryStore();
  if (config.store === "redis") {
    // Loaded only when chosen: the Redis client is memory a file or memory store does not need.
    const { createRedisStore } = await import("@mailpiece/store-redis");
    // Several server processes share one Redis: every claim, lease and compare-and-set holds across them.
    return createRedisStore({ url: config.redisUrl });
  }
  if (config.store === "postgres") {
    // The system of record of a deployment of several processes: migrated on open, under an advisory lock.
    const { createPostgresStore } = await import("@mailpiece/store-postgres");
    return createPostgresStore({ url: config.databaseUrl! });
  }
  return createFileStore({ dir: join(config.dataDir, "records") });
}

async function openBlobs(config: ServerConfig): Promise<BlobStore> {
  if (config.store === "memory") return createMemoryBlobStore();
  if (config.store === "redis") {
    const { createRedisBlobStore } = await import("@mailpiece/store-redis");
    return createRedisBlobStore({ url: config.redisUrl });
  }
  // Postgres keeps records; its documents are files under DATA_DIR unless BLOB_STORE=s3 (what several machines need).
  return createFileBlobStore({ dir: join(config.dataDir, "blobs") });
}

async function openS3(s3: S3Config): Promise<BlobStore> {
  const { createS3BlobStore } = await import("@mailpiece/blob-s3");
  return createS3BlobStore({
    bucket: s3.bucket,
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: s3.forcePathStyle,
  });
}

/**
 * What an embedder (or a test) may change beyond the environment's configuration: a decorator of the record store
 * (metrics, tracing, fault injection) and core settings that have no environment variable.
 */
export interface ServerHooks {
  wrapStore?: (store: Store) => Store;
  core?: Partial<CoreConfig>;
  /** A decorator of the HTTP handler (tracing, or a test's deliberately changed answer). */
  wrapFetch?: (fetch: (request: Request) => Promise<Response>) => (request: Request) => Promise<Response>;
}

/**
 * The deployment's email: over SMTP when SMTP_URL is set (its sent keys in the shared store, so several processes
 * send each mail once); else, on the embedded file store, an outbox folder under DATA_DIR that the dashboard shows;
 * else (a memory or shared store without SMTP) none.
 */
async function openEmail(
  config: ServerConfig,
  store: Store,
): Promise<{ sender: EmailSender; outbox?: EmailOutbox } | undefined> {
  const smtp = config.email.smtp;
  if (smtp) {
    const ca = smtp.caFile ? readFileSync(smtp.caFile, "utf8") : undefined;
    return { sender: createSmtpEmailSender({ url: smtp.url, store, ...(ca ? { tls: { ca } } : {}) }) };
  }
  if (config.store !== "file") return undefined;
  const outbox = await createEmailOutbox({ dir: join(config.dataDir, "outbox") });
  return { sender: outbox, outbox };
}

/** Builds the core and the app and listens on HOST:PORT. */
export async function startServer(
  config: ServerConfig,
  logger: Logger = createLogger(config.logLevel),
  hooks: ServerHooks = {},
): Promise<RunningServer> {
  const opened = await openStores(config);
  const blobs = opened.blobs;
  const store = hooks.wrapStore ? hooks.wrapStore(opened.store) : opened.store;
  let rails: ReturnType<typeof createRails>;
  let email: Awaited<ReturnType<typeof openEmail>>;
  try {
    email = await openEmail(config, store);
    const mpp = config.payments.mpp && !config.payments.mpp.secretKey;
    rails = createRails(
      config,
      store,
      mpp ? { mpp: await deploymentSecret(config, store, "mpp-secret") } : {},
    );
  } catch (error) {
    await Promise.all([store.close(), blobs.close(), email?.sender.close()]);
    throw error;
  }
  for (const what of rails.simulated) {
    logger.warn("PAYMENTS ARE SIMULATED", { rail: what });
  }
  const fetcher =
    config.pdfDownloadHosts.length > 0
      ? createSafeFetcher({
          allowHosts: config.pdfDownloadHosts,
          maxBytes: 100 * 1024 * 1024,
          timeoutMs: 30_000,
        })
      : undefined;
  // Webhook receivers are user-supplied URLs: HTTPS at public addresses only (named private hosts in development),
  // no redirect followed, 10 s and 64 KiB of answer at most.
  const poster = createSafePoster({
    anyPublicHost: true,
    timeoutMs: 10_000,
    ...(config.webhooks.privateHosts.length > 0 ? { privateHosts: config.webhooks.privateHosts } : {}),
  });
  const cardPayments = checkoutPayments(config.checkout, store);
  // Links in mails name the deployment's public URL, known once the server listens.
  let publicUrl = config.publicUrl ?? "";
  const previewSecret = config.previewSecret ?? (await deploymentSecret(config, store, "preview-secret"));
  const core = createMailpieceCore({
    store,
    blobs,
    rails: rails.rails,
    printProviders: [createSimulatedPrinter({ store, clock: systemClock, pace: config.printPace })],
    florist: createSimulatedFlorist({ store, clock: systemClock }),
    addresses: config.loqateApiKey
      ? loqateAddresses(config.loqateApiKey)
      : embeddedAddresses(config.addressIndexFile),
    checkoutPayments: cardPayments,
    onBackgroundError: (error) => logger.error("automatic refill failed", errorFields(error)),
    // Test credits never take real money: with live card payments, test top-ups use the simulated ones.
    ...(cardPayments.simulated
      ? {}
      : { testCheckoutPayments: checkoutPayments({ provider: "test" }, store) }),
    ...(fetcher ? { fetchDocument: async (url: string) => (await fetcher.fetch(url)).bytes } : {}),
    webhookSender: (request) =>
      poster.post(request.url, {
        body: request.body,
        headers: request.headers,
        ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
      }),
    checkWebhookUrl: (url) => poster.check(url),
    ...(email
      ? {
          email: {
            sender: email.sender,
            from: config.email.from,
            links: {
              order: (id: string) => `${publicUrl}/api/machine/orders/${encodeURIComponent(id)}`,
              campaign: (id: string) => `${publicUrl}/api/machine/campaigns/${encodeURIComponent(id)}`,
            },
            onGivenUp: (error: unknown) => logger.warn("an email was refused for good", errorFields(error)),
          },
        }
      : {}),
    webhookOptions: {
      eventRetentionMs: config.webhooks.eventRetentionMs,
      ...(config.webhooks.retryScheduleMs ? { retryScheduleMs: config.webhooks.retryScheduleMs } : {}),
    },
    // Typesetting and PDF checks run in worker threads: no request holds the event loop while a document is made.
    ...(config.pdfWorkers > 0
      ? {
          pdfWork: createPdfWorkerPool({
            threads: config.pdfWorkers,
            maxQueue: config.pdfQueue,
            deadlineMs: config.pdfDeadlineMs,
          }),
        }
      : {}),
    config: {
      pdfDownloadHosts: config.pdfDownloadHosts,
      previewSecret,
      unpaidRateLimit: { limit: config.unpaidPerHour, windowMs: 60 * 60 * 1000 },
      settleLeaseMs: config.settleLeaseMs,
      keyOverlapMs: config.keyOverlapMs,
      documentRetentionMs: config.documentRetentionMs,
      validateRateLimit: { limit: config.validatePerMinute, windowMs: 60 * 1000 },
      uploadLimits: {
        slots: { limit: config.uploadsPerHour, windowMs: 60 * 60 * 1000 },
        bytes: { limit: config.uploadBytesPerHour, windowMs: 60 * 60 * 1000 },
      },
      ...hooks.core,
    },
  });
  let app: ReturnType<typeof createServerApp> | undefined;
  const handle = async (request: Request): Promise<Response> =>
    app ? app.fetch(request) : new Response("starting", { status: 503 });
  const server = serve({
    fetch: hooks.wrapFetch ? hooks.wrapFetch(handle) : handle,
    hostname: config.host,
    port: config.port,
    silent: true,
    gracefulShutdown: false,
  });
  try {
    await server.ready();
  } catch (error) {
    await core.close();
    throw error;
  }
  const address = server.node?.server?.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  publicUrl = config.publicUrl ?? url;
  app = createServerApp(core, {
    publicUrl,
    maxBodyBytes: config.maxBodyBytes,
    maxInflightBodyBytes: config.maxInflightBodyBytes,
    trustProxy: config.trustProxy,
    logger,
    version: VERSION,
    mcpRequestsPerMinute: config.mcpRequestsPerMinute,
    ...(config.adminToken ? { adminToken: config.adminToken } : {}),
    ...(email?.outbox ? { outbox: email.outbox } : {}),
    ucp: {
      profileHosts: config.ucp.profileHosts,
      ...(config.ucp.signingKey ? { signingKey: config.ucp.signingKey } : {}),
    },
  });
  logger.info("listening", {
    url,
    public_url: publicUrl,
    store: store.name,
    data_dir: config.store === "file" ? config.dataDir : undefined,
  });
  if (email?.outbox) {
    logger.warn("EMAIL IS KEPT IN THE OUTBOX", {
      outbox: join(config.dataDir, "outbox"),
      read: config.adminToken
        ? `${publicUrl}/dashboard/outbox`
        : "set ADMIN_TOKEN to read it in the dashboard",
    });
  } else if (email) {
    logger.info("email over SMTP", { sender: email.sender.name, from: config.email.from.address });
  } else {
    logger.warn("EMAIL IS OFF", { reason: "no SMTP_URL, and the outbox needs the embedded file store" });
  }
  logger.warn("PRINTING IS SIMULATED", { provider: "simulated", pace_ms: config.printPace });
  logger.warn("FLOWER DELIVERY IS SIMULATED", { florist: "simulated" });
  if (config.checkout.provider === "test") {
    logger.warn("CHECKOUT CARD PAYMENTS ARE SIMULATED", {
      checkout_payments: "test",
      tokens: "spt_test_ok pays, spt_test_declined declines, spt_test_3ds needs 3-D Secure",
    });
  }
  const worker = startWorker(core, config.fulfilmentIntervalMs, logger);
  let closing: Promise<void> | undefined;
  return {
    url,
    core,
    close() {
      closing ??= (async () => {
        // Open MCP sessions hold SSE streams: they end first, so that the server can stop.
        await app?.close();
        await server.close();
        await worker.stop();
        await core.close();
      })();
      return closing;
    },
  };
}

/** Runs fulfilment rounds every `intervalMs`, one at a time; stop() waits for the round in progress. */
function startWorker(core: MailpieceCore, intervalMs: number, logger: Logger): { stop(): Promise<void> } {
  if (intervalMs <= 0) return { stop: async () => {} };
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const owner = `pid-${process.pid}`;
  const tick = () => {
    running = core
      .fulfil({ owner })
      .catch((error: unknown) => logger.error("fulfilment round failed", errorFields(error)))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
