import { Readable } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import {
  assertSendableEmail,
  type Clock,
  EmailError,
  type EmailMessage,
  type EmailSender,
  emailFingerprint,
  isValidKey,
  type SendResult,
  type Store,
  systemClock,
} from "@mailpiece/ports";
import { createTransport } from "nodemailer";
import { addressDomain, composeEmail, messageIdFor } from "./compose-email.ts";
import { keyLanes } from "./key-lanes.ts";
import { sentKeys } from "./sent-keys.ts";
import { classifySmtpFailure, type SmtpFailure } from "./smtp-failure.ts";
import { parseSmtpUrl, redact, secretForms } from "./smtp-url.ts";

export interface SmtpTimeouts {
  /** To open the TCP connection. Default 10 s. */
  connectMs?: number;
  /** From connecting to the server's greeting. Default 10 s. */
  greetingMs?: number;
  /** The longest silence of the server during a send. Default 60 s. */
  socketMs?: number;
  /** A whole send, from the start to the server's last reply; aborted after. Default 120 s. */
  sendMs?: number;
}

export interface SmtpEmailSenderOptions {
  /** `smtp://user:pass@host:587` (STARTTLS, required) or `smtps://user:pass@host:465` (implicit TLS). */
  url: string;
  /** The record of sent keys: a durable Store (file, Redis, Postgres) keeps each key used across restarts. */
  store: Store;
  clock?: Clock;
  /** Shown in logs and reports. Default `smtp`. */
  name?: string;
  /** Certificates to trust besides the system's (PEM), e.g. a private CA or a test server's self-signed one. */
  tls?: { ca?: string | Uint8Array | ReadonlyArray<string | Uint8Array>; servername?: string };
  /** Send over `smtp://` without TLS when the server offers no STARTTLS: only for a relay on the same host. */
  allowPlaintext?: boolean;
  timeouts?: SmtpTimeouts;
  /** Keep connections open and reuse them. Default true, 5 connections of at most 100 messages each. */
  pool?: boolean | { maxConnections?: number; maxMessages?: number };
  /** The domain of every Message-ID. Default: the domain of each message's `from` address. */
  messageIdDomain?: string;
  /** Store keys are `<keyPrefix>:<idempotency key>`. Default `email:smtp`. */
  keyPrefix?: string;
  /**
   * How long a send whose outcome is unknown holds its key before a later send under the key sends again, with the
   * same Message-ID. Default 10 minutes; at least the send timeout.
   */
  sendingLeaseMs?: number;
  /** How long a key stays used. Default 90 days. */
  retainMs?: number;
  /** The name the client gives in EHLO. Default the host name of the machine. */
  clientName?: string;
}

const DEFAULT_TIMEOUTS: Required<SmtpTimeouts> = {
  connectMs: 10_000,
  greetingMs: 10_000,
  socketMs: 60_000,
  sendMs: 120_000,
};
const DAY = 86_400_000;

type Delivery = { sent: Omit<SendResult, "duplicate"> } | { failure: SmtpFailure };
const DNS_NAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function positiveMs(value: number | undefined, fallback: number, what: string): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new TypeError(`${what} must be a whole number of milliseconds`);
  return ms;
}

function pemList(ca: NonNullable<SmtpEmailSenderOptions["tls"]>["ca"]): ConnectionOptions["ca"] {
  if (ca === undefined) return undefined;
  const one = (c: string | Uint8Array) => (typeof c === "string" ? c : Buffer.from(c));
  return Array.isArray(ca) ? ca.map(one) : one(ca as string | Uint8Array);
}

/**
 * An EmailSender over SMTP on nodemailer. Each send claims its key in the Store first, then sends, then records
 * the result: a second send under the key answers that result as a duplicate. Refusals the server makes (4xx, 5xx,
 * refused logins) and connections that fail before the message is handed over free the key again. A send whose
 * outcome is unknown keeps its claim for `sendingLeaseMs`, is `unavailable` until then, and is sent again after,
 * with the same Message-ID. No error carries the password.
 */
export function createSmtpEmailSender(options: SmtpEmailSenderOptions): EmailSender {
  const { url, store } = options;
  const endpoint = parseSmtpUrl(url);
  const secrets = secretForms(endpoint, url);
  const clock = options.clock ?? systemClock;
  const timeouts = {
    connectMs: positiveMs(options.timeouts?.connectMs, DEFAULT_TIMEOUTS.connectMs, "timeouts.connectMs"),
    greetingMs: positiveMs(options.timeouts?.greetingMs, DEFAULT_TIMEOUTS.greetingMs, "timeouts.greetingMs"),
    socketMs: positiveMs(options.timeouts?.socketMs, DEFAULT_TIMEOUTS.socketMs, "timeouts.socketMs"),
    sendMs: positiveMs(options.timeouts?.sendMs, DEFAULT_TIMEOUTS.sendMs, "timeouts.sendMs"),
  };
  const leaseMs = positiveMs(options.sendingLeaseMs, 10 * 60_000, "sendingLeaseMs");
  if (leaseMs < timeouts.sendMs) throw new TypeError("sendingLeaseMs must be at least timeouts.sendMs");
  const retainMs = positiveMs(options.retainMs, 90 * DAY, "retainMs");
  const prefix = options.keyPrefix ?? "email:smtp";
  if (!isValidKey(`${prefix}:k`)) throw new TypeError("keyPrefix must be made of Store key characters");
  if (options.messageIdDomain !== undefined && !DNS_NAME.test(options.messageIdDomain)) {
    throw new TypeError("messageIdDomain must be a domain name");
  }
  const server = `${endpoint.host}:${endpoint.port}`;
  const pool = options.pool ?? true;

  const connection = {
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.implicitTls,
    requireTLS: !endpoint.implicitTls && options.allowPlaintext !== true,
    ...(endpoint.auth ? { auth: { user: endpoint.auth.user, pass: endpoint.auth.pass } } : {}),
    tls: {
      minVersion: "TLSv1.2" as const,
      rejectUnauthorized: true,
      ...(options.tls?.ca !== undefined ? { ca: pemList(options.tls.ca) } : {}),
      ...(options.tls?.servername !== undefined ? { servername: options.tls.servername } : {}),
    },
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectMs,
    ...(options.clientName !== undefined ? { name: options.clientName } : {}),
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  const transport =
    pool === false
      ? createTransport(connection)
      : createTransport({
          ...connection,
          pool: true,
          maxConnections: (pool === true ? undefined : pool.maxConnections) ?? 5,
          maxMessages: (pool === true ? undefined : pool.maxMessages) ?? 100,
        });

  const keys = sentKeys({ store, clock, prefix, leaseMs, retainMs });
  const lane = keyLanes();
  let closed = false;

  /** Sends the composed message; answers what was sent, or how the send failed. */
  const deliver = async (message: EmailMessage, messageId: string): Promise<Delivery> => {
    let raw: Buffer;
    try {
      raw = await composeEmail(message, { messageId, date: new Date(clock.now()) });
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error), secrets);
      return {
        failure: {
          error: new EmailError("invalid_message", `the message cannot be composed: ${reason}`),
          definite: true,
        },
      };
    }
    let handedOver = false;
    const body = new Readable({
      read() {
        handedOver = true;
        this.push(raw);
        this.push(null);
      },
    });
    try {
      const info = await transport.sendMail({
        envelope: { from: message.from.address, to: message.to.map((m) => m.address) },
        raw: body,
        signal: AbortSignal.timeout(timeouts.sendMs),
      });
      const accepted = (info.accepted as unknown[]).map((a) =>
        typeof a === "string" ? a : String((a as { address?: unknown }).address),
      );
      return {
        sent: {
          key: message.key,
          message_id: messageId,
          accepted,
          sent_at: new Date(clock.now()).toISOString(),
        },
      };
    } catch (error) {
      return { failure: classifySmtpFailure(error, { server, handedOver, secrets }) };
    }
  };

  const sendOnce = async (message: EmailMessage): Promise<SendResult> => {
    const fingerprint = await emailFingerprint(message);
    const wanted = messageIdFor(message.key, options.messageIdDomain ?? addressDomain(message.from.address));
    const claim = await keys.claim(message.key, fingerprint, wanted);
    if (claim.kind === "sent") return { ...claim.result, duplicate: true };
    const delivery = await deliver(message, claim.message_id);
    if ("failure" in delivery) {
      if (delivery.failure.definite) await keys.release(message.key, claim.version);
      throw delivery.failure.error;
    }
    await keys.complete(message.key, claim.version, fingerprint, delivery.sent);
    return { ...delivery.sent, duplicate: false };
  };

  return {
    name: options.name ?? "smtp",
    capabilities: Object.freeze({ durable: store.capabilities.durable, delivers: true }),
    async send(message) {
      if (closed) throw new EmailError("unavailable", "this email sender is closed");
      assertSendableEmail(message);
      return lane(message.key, () => sendOnce(message));
    },
    async close() {
      closed = true;
      transport.close();
    },
  };
}
