import { timingSafeEqual } from "node:crypto";
import type { SMTPServer, SMTPServerOptions } from "smtp-server";
import type { ReceivedEmail } from "../email/email-sender-contract.ts";

/*
 * A real SMTP server for tests of email senders and of deployments that send mail. `smtp-server`, `selfsigned` and
 * `mailparser` are optional peers of this package, loaded only when a server is started: install them where the
 * tests that call this run.
 */

/**
 * A self-signed server certificate (EC, SHA-256) for the DNS names given, and the IP addresses given, as the HTTPS
 * and SMTP test servers of this repository use them; the first name is the common name.
 */
export async function createTestCertificate(
  names: readonly string[],
  ips: readonly string[] = [],
): Promise<{ key: string; cert: string }> {
  const { generate } = await import("selfsigned");
  const pems = await generate([{ name: "commonName", value: names[0] ?? ips[0] ?? "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          ...names.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** A self-signed certificate for localhost and 127.0.0.1. */
export function createLocalCertificate(): Promise<{ key: string; cert: string }> {
  return createTestCertificate(["localhost"], ["127.0.0.1"]);
}

/** How the test server treats what comes in, until set back to `accept`. */
export type TestSmtpMode =
  /** Every message is taken (250). */
  | "accept"
  /** The whole message is received, then refused for now (451). */
  | "refuse-temporarily"
  /** Every recipient is refused for good (550). */
  | "refuse-permanently"
  /** Every login is refused (535). */
  | "refuse-credentials"
  /** The whole message is received and kept, and no reply ever comes: the sender cannot know it went out. */
  | "silent-after-data";

export interface TestSmtpServer {
  readonly port: number;
  /** The server's certificate, PEM: pass it as `tls.ca`. */
  readonly ca: string;
  /** `smtp://user:pass@127.0.0.1:port` (or `smtps://` for implicit TLS), percent-encoded. */
  readonly url: string;
  /** The raw messages the server took (and those it kept in `silent-after-data`), oldest first. */
  readonly raw: Array<{ bytes: Buffer; envelopeTo: string[] }>;
  /** TCP connections accepted so far. */
  connections: number;
  mode: TestSmtpMode;
  /** Recipients refused with 550 while the others are taken. */
  readonly refusedRecipients: Set<string>;
  /** Every message taken, read back with mailparser. */
  inbox(): Promise<ReceivedEmail[]>;
  /**
   * Ends every open session (pooled ones included) and waits until they are closed on both sides, so that the next
   * message needs a new connection and a new login.
   */
  dropConnections(): Promise<void>;
  /** Stops listening (connections are refused) until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export interface TestSmtpServerOptions {
  certificate: { key: string; cert: string };
  user: string;
  pass: string;
  /** TLS from the first byte (smtps) instead of STARTTLS. */
  implicitTls?: boolean;
  /** Offer no STARTTLS. */
  withoutStartTls?: boolean;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * An SMTP server on 127.0.0.1 (a free port) with a self-signed certificate, STARTTLS (or implicit TLS) and
 * PLAIN/LOGIN authentication after TLS only; its `mode` makes it refuse or go silent.
 */
export async function startTestSmtpServer(options: TestSmtpServerOptions): Promise<TestSmtpServer> {
  const { SMTPServer } = await import("smtp-server");
  const { simpleParser } = await import("mailparser");
  let server: SMTPServer | undefined;
  const state = {
    port: 0,
    ca: options.certificate.cert,
    url: "",
    raw: [] as Array<{ bytes: Buffer; envelopeTo: string[] }>,
    connections: 0,
    mode: "accept" as TestSmtpMode,
    refusedRecipients: new Set<string>(),
  };
  const serverOptions: SMTPServerOptions = {
    key: options.certificate.key,
    cert: options.certificate.cert,
    secure: options.implicitTls === true,
    ...(options.withoutStartTls ? { disabledCommands: ["STARTTLS"] } : {}),
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: false,
    size: 30 * 1024 * 1024,
    closeTimeout: 200,
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      const ok = same(auth.username ?? "", options.user) && same(auth.password ?? "", options.pass);
      if (!ok || state.mode === "refuse-credentials") {
        callback(smtpError(535, "5.7.8 Authentication credentials invalid"));
        return;
      }
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (state.mode === "refuse-permanently" || state.refusedRecipients.has(address.address)) {
        callback(smtpError(550, "5.1.1 Mailbox unavailable"));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const message = {
          bytes: Buffer.concat(chunks),
          envelopeTo: session.envelope.rcptTo.map((a) => a.address),
        };
        if (state.mode === "refuse-temporarily") {
          callback(smtpError(451, "4.3.0 Temporary failure, try again later"));
        } else if (state.mode === "silent-after-data") {
          state.raw.push(message);
        } else {
          state.raw.push(message);
          callback(null, "2.0.0 queued");
        }
      });
    },
  };

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const next = new SMTPServer(serverOptions);
      next.on("error", () => undefined);
      const listening = next.listen(port, "127.0.0.1", () => {
        listening.off("error", reject);
        server = next;
        const address = listening.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
      listening.once("error", reject);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      current.close(() => resolve());
    });

  const dropConnections = async () => {
    const current = server;
    if (!current) return;
    for (const connection of current.connections) connection.close();
    for (let turn = 0; current.connections.size > 0 && turn < 1000; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  state.port = await listen(0);
  const scheme = options.implicitTls ? "smtps" : "smtp";
  state.url = `${scheme}://${encodeURIComponent(options.user)}:${encodeURIComponent(options.pass)}@127.0.0.1:${state.port}`;
  return Object.assign(state, {
    inbox: async () =>
      Promise.all(
        state.raw.map(async (m) => ({ mail: await simpleParser(m.bytes), envelopeTo: m.envelopeTo })),
      ),
    dropConnections,
    down: stop,
    up: async () => {
      if (!server) await listen(state.port);
    },
    close: stop,
  });
}
