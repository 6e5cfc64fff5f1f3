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
  /** Pays on-session and saves, but every off-session PaymentIntent of the saved card is declined (card_error). */
  declinesOffSession: "spt_1RgaZcFPC5QUO6ZCOffSessDecl",
} as const;

/** The card of every method the fake saves. */
export const FAKE_CARD = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 } as const;

/** Stripe's longest Idempotency-Key. */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

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
  /** Customers created, by id. */
  readonly customers: Map<string, Record<string, unknown>>;
  /** SetupIntents created, by id: each is one save attempt that reached the fake. */
  readonly setupIntents: Map<string, Record<string, unknown>>;
  /** Card PaymentMethods saved by a SetupIntent that succeeded, by id, with the customer they are attached to. */
  readonly paymentMethods: Map<string, Record<string, unknown>>;
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
 * A local stand-in for the part of the Stripe API the adapter uses, with answers of Stripe's shape:
 * - POST /v1/payment_intents: create and confirm with a shared payment token, or off-session with a saved
 *   `payment_method` of a `customer` (an unknown customer or method, or a method of another customer, is a 400
 *   `resource_missing`; a method saved from `FAKE_TOKENS.declinesOffSession` is a 402 card_error decline);
 *   GET /v1/payment_intents/:id.
 * - POST /v1/customers.
 * - POST /v1/setup_intents (confirmed with a shared payment token under a customer: a paying token saves a card
 *   PaymentMethod attached to the customer; a declined one is a 402 card_error; the 3-D Secure one is
 *   `requires_action`; `expand[]=payment_method` answers the method itself); GET /v1/setup_intents/:id.
 *
 * Stripe's idempotency rules: the same Idempotency-Key, endpoint and parameters answer the first answer again, with
 * `Idempotent-Replayed: true`; other parameters or another endpoint are a 400 `idempotency_error`; a request refused
 * by validation keeps no answer; a key longer than 255 characters is refused. Listens on 127.0.0.1 only.
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const intents = new Map<string, Record<string, unknown>>();
  const customers = new Map<string, Record<string, unknown>>();
  const setupIntents = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, Record<string, unknown>>();
  /** The token each saved method came from, by method id (Stripe knows what a card does; the fake knows its token). */
  const savedFrom = new Map<string, string>();
  /** The token of each SetupIntent still processing, by its id. */
  const pending = new Map<string, string>();
  const byKey = new Map<string, { endpoint: string; params: string; answer: Answer }>();
  const reads = new Map<string, number>();
  let lose = 0;
  let refuse = 0;
  let scripted: Answer | undefined;

  const creators: Record<string, (params: Record<string, string>) => { answer: Answer; kept: boolean }> = {
    "/v1/payment_intents": create,
    "/v1/customers": createCustomer,
    "/v1/setup_intents": createSetupIntent,
  };

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
    const readSetup = /^\/v1\/setup_intents\/(seti_[A-Za-z0-9]+)$/.exec(request.path);
    if (request.method === "GET" && readSetup?.[1]) return retrieveSetupIntent(readSetup[1], request.params);
    const creator = request.method === "POST" ? creators[request.path] : undefined;
    if (!creator) {
      return error(404, {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${request.method}: ${request.path}).`,
      });
    }
    const key = String(request.headers["idempotency-key"] ?? "");
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return error(400, {
        type: "invalid_request_error",
        message: `Invalid idempotency key: it can be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long.`,
      });
    }
    const endpoint = `${request.method} ${request.path}`;
    const params = canonical(request.params);
    const earlier = byKey.get(key);
    if (earlier) {
      if (earlier.endpoint !== endpoint) {
        return error(400, {
          type: "idempotency_error",
          message: STRIPE_IDEMPOTENCY_ENDPOINT_MESSAGE(key, earlier.endpoint),
        });
      }
      if (earlier.params !== params) {
        return error(400, { type: "idempotency_error", message: STRIPE_IDEMPOTENCY_MESSAGE(key) });
      }
      return { ...earlier.answer, replayed: true };
    }
    const { answer, kept } = creator(request.params);
    if (kept && key) byKey.set(key, { endpoint, params, answer });
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
    if (params.payment_method !== undefined) return createOffSession(params);
    const token = params[TOKEN_PARAM] ?? "";
    if (!knows(token)) return { answer: unknownToken(token), kept: false };
    if (token === FAKE_TOKENS.declined) {
      const intent = intentOf(params, "requires_payment_method");
      return { answer: cardDeclined("insufficient_funds", { payment_intent: failed(intent) }), kept: true };
    }
    const status =
      token === FAKE_TOKENS.requiresAction
        ? "requires_action"
        : token === FAKE_TOKENS.processing
          ? "processing"
          : "succeeded";
    return { answer: { status: 200, body: intentOf(params, status) }, kept: true };
  }

  /** A PaymentIntent of a saved card, confirmed without its holder (`off_session`). */
  function createOffSession(params: Record<string, string>): { answer: Answer; kept: boolean } {
    const customer = params.customer ?? "";
    const pm = params.payment_method ?? "";
    if (!customers.has(customer)) return { answer: noSuch("customer", "customer", customer), kept: false };
    const method = paymentMethods.get(pm);
    if (!method || method.customer !== customer) {
      return { answer: noSuch("PaymentMethod", "payment_method", pm), kept: false };
    }
    if (savedFrom.get(pm) === FAKE_TOKENS.declinesOffSession) {
      const intent = intentOf(params, "requires_payment_method");
      return { answer: cardDeclined("do_not_honor", { payment_intent: failed(intent) }), kept: true };
    }
    return { answer: { status: 200, body: intentOf(params, "succeeded") }, kept: true };
  }

  function createCustomer(params: Record<string, string>): { answer: Answer; kept: boolean } {
    const customer = {
      id: id("cus"),
      object: "customer",
      address: null,
      balance: 0,
      created: Math.floor(Date.now() / 1000),
      currency: null,
      default_source: null,
      delinquent: false,
      description: params.description ?? null,
      email: null,
      invoice_prefix: randomBytes(4).toString("hex").toUpperCase(),
      invoice_settings: {
        custom_fields: null,
        default_payment_method: null,
        footer: null,
        rendering_options: null,
      },
      livemode: false,
      metadata: metadataOf(params),
      name: null,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
    };
    customers.set(customer.id, customer);
    return { answer: { status: 200, body: customer }, kept: true };
  }

  function createSetupIntent(params: Record<string, string>): { answer: Answer; kept: boolean } {
    const customer = params.customer ?? "";
    if (!customers.has(customer)) return { answer: noSuch("customer", "customer", customer), kept: false };
    const token = params[TOKEN_PARAM] ?? "";
    if (!knows(token)) return { answer: unknownToken(token), kept: false };
    if (token === FAKE_TOKENS.declined) {
      const setup = setupIntentOf(params, "requires_payment_method", null);
      setup.last_setup_error = {
        code: "card_declined",
        decline_code: "insufficient_funds",
        type: "card_error",
      };
      return { answer: cardDeclined("insufficient_funds", { setup_intent: setup }), kept: true };
    }
    if (token === FAKE_TOKENS.requiresAction) {
      const setup = setupIntentOf(params, "requires_action", null);
      return { answer: { status: 200, body: view(setup, params) }, kept: true };
    }
    const processing = token === FAKE_TOKENS.processing;
    const setup = setupIntentOf(
      params,
      processing ? "processing" : "succeeded",
      processing ? null : save(customer, token),
    );
    if (processing) pending.set(String(setup.id), token);
    return { answer: { status: 200, body: view(setup, params) }, kept: true };
  }

  /** Saves a card PaymentMethod from `token`, attached to `customer`; answers its id. */
  function save(customer: string, token: string): string {
    const pm = id("pm");
    paymentMethods.set(pm, {
      id: pm,
      object: "payment_method",
      allow_redisplay: "unspecified",
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        ...FAKE_CARD,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
        country: "US",
        display_brand: "visa",
        fingerprint: randomBytes(8).toString("hex"),
        funding: "credit",
        networks: { available: ["visa"], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: Math.floor(Date.now() / 1000),
      customer,
      livemode: false,
      metadata: {},
      type: "card",
    });
    savedFrom.set(pm, token);
    return pm;
  }

  function setupIntentOf(
    params: Record<string, string>,
    status: string,
    pm: string | null,
  ): Record<string, unknown> {
    const seti = id("seti");
    const setup = {
      id: seti,
      object: "setup_intent",
      application: null,
      automatic_payment_methods: { allow_redirects: "never", enabled: true },
      cancellation_reason: null,
      client_secret: `${seti}_secret_${randomBytes(12).toString("hex")}`,
      created: Math.floor(Date.now() / 1000),
      customer: params.customer ?? null,
      description: params.description ?? null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: id("setatt"),
      livemode: false,
      mandate: null,
      metadata: metadataOf(params),
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
      payment_method: pm,
      payment_method_types: ["card"],
      single_use_mandate: null,
      status,
      usage: params.usage ?? "off_session",
    };
    setupIntents.set(seti, setup);
    return setup;
  }

  /** The SetupIntent as an answer shows it: with its PaymentMethod itself when asked to expand it. */
  function view(setup: Record<string, unknown>, params: Record<string, string>): Record<string, unknown> {
    const expand = Object.entries(params).some(
      ([name, value]) => name.startsWith("expand[") && value === "payment_method",
    );
    const pm =
      typeof setup.payment_method === "string" ? paymentMethods.get(setup.payment_method) : undefined;
    return expand && pm ? { ...setup, payment_method: structuredClone(pm) } : structuredClone(setup);
  }

  function retrieveSetupIntent(seti: string, params: Record<string, string>): Answer {
    const setup = setupIntents.get(seti);
    if (!setup) return noSuch("setupintent", undefined, seti, 404);
    const count = (reads.get(seti) ?? 0) + 1;
    reads.set(seti, count);
    if (setup.status === "processing" && count >= 2) {
      setup.status = "succeeded";
      setup.payment_method = save(String(setup.customer), pending.get(seti) ?? "");
      pending.delete(seti);
    }
    return { status: 200, body: view(setup, params) };
  }

  function intentOf(params: Record<string, string>, status: string): Record<string, unknown> {
    const amount = Number(params.amount);
    const pi = id("pi");
    const metadata = metadataOf(params);
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
      customer: params.customer ?? null,
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
      payment_method: params.payment_method ?? id("pm"),
      payment_method_types: ["card"],
      setup_future_usage: null,
      status,
    };
    intents.set(pi, intent);
    return intent;
  }

  function retrieve(pi: string): Answer {
    const intent = intents.get(pi);
    if (!intent) return noSuch("payment_intent", undefined, pi, 404);
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
        // A GET carries its parameters (expand[0]=...) in the query string.
        params: Object.fromEntries(incoming.method === "GET" ? url.searchParams : new URLSearchParams(body)),
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
    customers,
    setupIntents,
    paymentMethods,
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

const STRIPE_IDEMPOTENCY_ENDPOINT_MESSAGE = (key: string, endpoint: string) =>
  `Keys for idempotent requests can only be used for the same endpoint they were first used for (${endpoint}). Try using a key other than '${key}' if you meant to execute a different request.`;

/** Whether the fake knows `token` as a shared payment token (every FAKE_TOKENS but `unknown`). */
function knows(token: string): boolean {
  return (Object.values(FAKE_TOKENS) as string[]).includes(token) && token !== FAKE_TOKENS.unknown;
}

function unknownToken(token: string): Answer {
  const message = `No such shared_payment_granted_token: '${token}'`;
  return error(400, { type: "invalid_request_error", code: "resource_missing", param: TOKEN_PARAM, message });
}

/** Stripe's answer about an object it does not have: `No such customer: 'cus_...'`. */
function noSuch(what: string, param: string | undefined, value: string, status = 400): Answer {
  return error(status, {
    type: "invalid_request_error",
    code: "resource_missing",
    ...(param === undefined ? {} : { param }),
    message: `No such ${what}: '${value}'`,
  });
}

/** A card decline (402), with the PaymentIntent or SetupIntent it left behind. */
function cardDeclined(reason: string, intent: Record<string, unknown>): Answer {
  return error(402, {
    type: "card_error",
    code: "card_declined",
    decline_code: reason,
    ...(intent.payment_intent === undefined ? {} : { charge: id("ch") }),
    doc_url: "https://stripe.com/docs/error-codes/card-declined",
    message:
      reason === "insufficient_funds" ? "Your card has insufficient funds." : "Your card was declined.",
    ...intent,
  });
}

/** A declined PaymentIntent as the error shows it, with its last payment error. */
function failed(intent: Record<string, unknown>): Record<string, unknown> {
  return { ...intent, last_payment_error: { code: "card_declined", type: "card_error" } };
}

function metadataOf(params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params)
      .filter(([name]) => name.startsWith("metadata["))
      .map(([name, value]) => [name.slice("metadata[".length, -1), value]),
  );
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
