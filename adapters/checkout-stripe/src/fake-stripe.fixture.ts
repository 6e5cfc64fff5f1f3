import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Shared payment tokens the fake knows; any other `spt_` token is unknown to it. */
export const FAKE_TOKENS = {
  ok: "spt_1RgaZcFPC5QUO6ZCDVZuVA8q",
  declined: "spt_1RgaZcFPC5QUO6ZCDeclined0",
  requiresAction: "spt_1RgaZcFPC5QUO6ZCThreeDS00",
  /** Processing when created; succeeded from the second time it is read. */
  processing: "spt_1RgaZcFPC5QUO6ZCProcessing",
  unknown: "spt_1RgaZcFPC5QUO6ZCUnknown000",
} as const;

export const FAKE_SECRET_KEY = "sk_test_51FakeMailpieceSecretKey0000000000";

/** The parameter the token travels in, as the form-encoded body names it. */
export const TOKEN_PARAM = "payment_method_data[shared_payment_granted_token]";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The form-encoded body, one entry per field (`metadata[order_id]` and so on). */
  params: Record<string, string>;
}

interface Answer {
  status: number;
  body: unknown;
  /** A repeat under a used Idempotency-Key: Stripe marks it `Idempotent-Replayed: true`. */
  replayed?: boolean;
}

export interface FakeStripe {
  /** Every request received, in order, faults included. */
  readonly requests: RecordedRequest[];
  /** PaymentIntents created, by id: each is one charge attempt that reached the fake. */
  readonly intents: Map<string, Record<string, unknown>>;
  readonly port: number;
  /** The next `n` requests are processed and recorded, then the connection drops without an answer. */
  loseAnswers(n?: number): void;
  /** The next `n` requests are dropped before anything is processed, as when Stripe cannot be reached. */
  refuseRequests(n?: number): void;
  /** Ends every fault. */
  heal(): void;
  /** The next request gets this answer without being processed (errors Stripe sends in rare cases). */
  answerNext(status: number, body: unknown): void;
  /** PaymentIntents that succeeded: the charges that moved money. */
  charges(): number;
  close(): Promise<void>;
}

const STRIPE_IDEMPOTENCY_MESSAGE = (key: string) =>
  `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`;

const id = (prefix: string) => `${prefix}_3Q${randomBytes(12).toString("hex")}`;

/**
 * A local stand-in for the part of the Stripe API the adapter uses: POST /v1/payment_intents (create and confirm
 * with a shared payment token) and GET /v1/payment_intents/:id, with Stripe's idempotency rules (same
 * Idempotency-Key and parameters: the first answer again, with `Idempotent-Replayed: true`; other parameters: 400
 * `idempotency_error`; a request refused by validation keeps no answer). Answers have the shape of Stripe's.
 * Listens on 127.0.0.1 only.
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const intents = new Map<string, Record<string, unknown>>();
  const byKey = new Map<string, { params: string; answer: Answer }>();
  const reads = new Map<string, number>();
  let lose = 0;
  let refuse = 0;
  let scripted: Answer | undefined;

  function handle(request: RecordedRequest): Answer {
    if (scripted) {
      const answer = scripted;
      scripted = undefined;
      return answer;
    }
    if (request.headers.authorization !== `Bearer ${FAKE_SECRET_KEY}`) {
      return error(401, {
        type: "invalid_request_error",
        message: "Invalid API Key provided: sk_test_****0000",
      });
    }
    const read = /^\/v1\/payment_intents\/(pi_[A-Za-z0-9]+)$/.exec(request.path);
    if (request.method === "GET" && read?.[1]) return retrieve(read[1]);
    if (request.method !== "POST" || request.path !== "/v1/payment_intents") {
      return error(404, {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${request.path}).`,
      });
    }
    const key = String(request.headers["idempotency-key"] ?? "");
    const params = canonical(request.params);
    const earlier = byKey.get(key);
    if (earlier) {
      if (earlier.params !== params) {
        return error(400, { type: "idempotency_error", message: STRIPE_IDEMPOTENCY_MESSAGE(key) });
      }
      return { ...earlier.answer, replayed: true };
    }
    const { answer, kept } = create(request.params);
    if (kept && key) byKey.set(key, { params, answer });
    return answer;
  }

  function create(params: Record<string, string>): { answer: Answer; kept: boolean } {
    const amount = Number(params.amount);
    if (!Number.isSafeInteger(amount) || amount < 50) {
      const message = "Amount must be at least $0.50 usd";
      return {
        answer: error(400, {
          type: "invalid_request_error",
          code: "amount_too_small",
          param: "amount",
          message,
        }),
        kept: false,
      };
    }
    if (params.currency !== "usd") {
      const message = `Invalid currency: ${params.currency}.`;
      return {
        answer: error(400, { type: "invalid_request_error", param: "currency", message }),
        kept: false,
      };
    }
    const token = params[TOKEN_PARAM] ?? "";
    if (!(Object.values(FAKE_TOKENS) as string[]).includes(token) || token === FAKE_TOKENS.unknown) {
      const message = `No such shared_payment_granted_token: '${token}'`;
      const body = { type: "invalid_request_error", code: "resource_missing", param: TOKEN_PARAM, message };
      return { answer: error(400, body), kept: false };
    }
    if (token === FAKE_TOKENS.declined) {
      const intent = intentOf(params, "requires_payment_method");
      const decline = {
        type: "card_error",
        code: "card_declined",
        decline_code: "insufficient_funds",
        charge: id("ch"),
        doc_url: "https://stripe.com/docs/error-codes/card-declined",
        message: "Your card has insufficient funds.",
        payment_intent: { ...intent, last_payment_error: { code: "card_declined", type: "card_error" } },
      };
      return { answer: error(402, decline), kept: true };
    }
    const status =
      token === FAKE_TOKENS.requiresAction
        ? "requires_action"
        : token === FAKE_TOKENS.processing
          ? "processing"
          : "succeeded";
    return { answer: { status: 200, body: intentOf(params, status) }, kept: true };
  }

  function intentOf(params: Record<string, string>, status: string): Record<string, unknown> {
    const amount = Number(params.amount);
    const pi = id("pi");
    const metadata = Object.fromEntries(
      Object.entries(params)
        .filter(([name]) => name.startsWith("metadata["))
        .map(([name, value]) => [name.slice("metadata[".length, -1), value]),
    );
    const intent = {
      id: pi,
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_received: status === "succeeded" ? amount : 0,
      automatic_payment_methods: { allow_redirects: "never", enabled: true },
      canceled_at: null,
      cancellation_reason: null,
      capture_method: "automatic_async",
      client_secret: `${pi}_secret_${randomBytes(12).toString("hex")}`,
      confirmation_method: "automatic",
      created: Math.floor(Date.now() / 1000),
      currency: "usd",
      customer: null,
      description: params.description ?? null,
      last_payment_error: null,
      latest_charge: status === "succeeded" ? id("ch") : null,
      livemode: false,
      metadata,
      next_action:
        status === "requires_action"
          ? {
              type: "use_stripe_sdk",
              use_stripe_sdk: {
                type: "three_d_secure_redirect",
                stripe_js: "https://hooks.stripe.com/3d_secure_2/hosted",
              },
            }
          : null,
      payment_method: id("pm"),
      payment_method_types: ["card"],
      status,
    };
    intents.set(pi, intent);
    return intent;
  }

  function retrieve(pi: string): Answer {
    const intent = intents.get(pi);
    if (!intent)
      return error(404, {
        type: "invalid_request_error",
        code: "resource_missing",
        message: `No such payment_intent: '${pi}'`,
      });
    const count = (reads.get(pi) ?? 0) + 1;
    reads.set(pi, count);
    if (intent.status === "processing" && count >= 2) {
      intent.status = "succeeded";
      intent.amount_received = intent.amount;
    }
    return { status: 200, body: intent };
  }

  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
      const body = Buffer.concat(chunks).toString("utf8");
      const request: RecordedRequest = {
        method: incoming.method ?? "",
        path: url.pathname,
        headers: incoming.headers,
        params: Object.fromEntries(new URLSearchParams(body)),
      };
      requests.push(request);
      if (refuse > 0) {
        refuse -= 1;
        incoming.socket.destroy();
        return;
      }
      const answer = handle(request);
      if (lose > 0) {
        lose -= 1;
        incoming.socket.destroy();
        return;
      }
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "request-id": `req_${randomBytes(7).toString("hex")}`,
        "stripe-version": String(incoming.headers["stripe-version"] ?? ""),
        ...(answer.replayed ? { "idempotent-replayed": "true" } : {}),
      });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    requests,
    intents,
    port,
    loseAnswers(n = Number.POSITIVE_INFINITY) {
      lose = n;
    },
    refuseRequests(n = Number.POSITIVE_INFINITY) {
      refuse = n;
    },
    heal() {
      lose = 0;
      refuse = 0;
    },
    answerNext(status, body) {
      scripted = { status, body };
    },
    charges: () => [...intents.values()].filter((intent) => intent.status === "succeeded").length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((problem) => (problem ? reject(problem) : resolve()));
      }),
  };
}

function error(status: number, body: Record<string, unknown>): Answer {
  return {
    status,
    body: { error: { request_log_url: "https://dashboard.stripe.com/test/logs/req_fake", ...body } },
  };
}

/** The parameters in a stable order, to compare two requests under one key as Stripe does. */
function canonical(params: Record<string, string>): string {
  return JSON.stringify(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
