import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ContractTest, notApplicable, type Requirement, type Suite } from "../kit.ts";
import { makePdf, pdfDataUrl } from "../machine/fixtures.ts";
import type { HttpTarget } from "../machine/http-target.ts";
import { DEFAULT_SUITE_ADDRESSES, type KnownAddress } from "../machine/machine-suite.ts";
import { absoluteUrl, isObject } from "../mcp/json-checks.ts";
import { type McpSession, textOf, withMcpSession } from "../mcp/mcp-session.ts";

type Json = Record<string, unknown>;

export const UCP_SUITE_TEST_NAMES = [
  "the business profile at /.well-known/ucp names UCP version 2026-01-11",
  "the profile lists the dev.ucp.shopping service with its MCP endpoint",
  "the profile lists the checkout capability",
  "the profile lists a payment handler for shared payment tokens",
  "the payment handler's schemas are served as JSON Schema at /ucp/schemas",
  "the profile publishes its signing keys as public keys only",
  "the MCP endpoint lists the five checkout tools",
  "a call without _meta.ucp.profile is refused with a UCP error naming it",
  "a platform profile on a host the deployment does not admit is refused",
  "a platform on a newer UCP version is refused with version_unsupported",
  "create_checkout answers a priced checkout for a mailed PDF",
  "get_checkout answers the checkout by its id, and refuses an unknown id",
  "update_checkout adds the buyer and prices a changed mail order again under the same id",
  "create_checkout refuses manual addresses, letter text and forms at their fields",
  "cancel_checkout cancels an unpaid checkout, and its replay answers the same",
  "complete_checkout pays with a shared payment token and places the order once",
] as const;

export type UcpSuiteTestName = (typeof UCP_SUITE_TEST_NAMES)[number];

/** A platform profile as the suite publishes one: the UCP version and the capabilities the platform speaks. */
export type PlatformProfileDocument = Record<string, unknown>;

export interface UcpSuiteOptions {
  /**
   * The platform's profile, which the deployment fetches by URL (`_meta.ucp.profile` of every checkout call): a
   * function that publishes a profile where the deployment may fetch it and answers its URL (e.g. `publish` of
   * `servePlatformProfiles()`, with the deployment admitting its host), or the URL of one profile of UCP 2026-01-11
   * that lists dev.ucp.shopping.checkout. Absent: the checks that need a platform profile are not applicable; a URL
   * only: the check of a platform on a newer version is not applicable.
   */
  platformProfile?: string | ((profile: PlatformProfileDocument) => string | Promise<string>);
  /**
   * An address search id of type Address that the deployment's address provider knows, used for both parties of
   * the checkouts (UCP checkout takes address-search addresses only). Default: the US address of
   * DEFAULT_SUITE_ADDRESSES, from the sample of the reference server's embedded provider.
   */
  address?: KnownAddress;
}

export const UCP_SUITE_VERSION = "2026-01-11";
const SHOPPING_SERVICE = "dev.ucp.shopping";
const CHECKOUT_CAPABILITY = "dev.ucp.shopping.checkout";
const CHECKOUT_TOOLS = [
  "create_checkout",
  "get_checkout",
  "update_checkout",
  "complete_checkout",
  "cancel_checkout",
];
/** The checkout member that carries the mail order: spec 1's neutral prefix and the mailpiece. */
const MAILPIECE_MEMBER = "svc.mailpiece";
const LINE_ITEMS = [{ item: { id: "mailpiece" }, quantity: 1 }];
const BUYER = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };
const STATUSES = [
  "incomplete",
  "requires_escalation",
  "ready_for_complete",
  "complete_in_progress",
  "completed",
  "canceled",
];
const SEVERITIES = ["recoverable", "requires_buyer_input", "requires_buyer_review", "unrecoverable"];
/** Members of a JWK that belong to a private key. */
const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"];
/** A host no deployment admits for profiles: a private address, refused before any connection is made. */
const UNADMITTED_PROFILE = "https://10.0.0.1/.well-known/ucp";
const PAYING = "paying check: runs only against simulated card payments";
const NO_PROFILE =
  "the suite was given no platform profile (options.platformProfile) that the deployment may fetch";

const SPEC1 = "spec 1 (machine API)";
const UCP = `UCP ${UCP_SUITE_VERSION}`;
const spec1 = (sentence: string): Requirement => ({
  spec: SPEC1,
  section: "Agent tool (MCP) interface",
  sentence,
});
const ucp = (section: string, sentence: string): Requirement => ({ spec: UCP, section, sentence });

const REQUIREMENTS: Record<UcpSuiteTestName, Requirement> = {
  "the business profile at /.well-known/ucp names UCP version 2026-01-11": spec1(
    "A second checkout-protocol surface exists: profile at /.well-known/ucp, endpoint {base_url}/ucp/mcp, capability dev.ucp.shopping.checkout version 2026-01-11.",
  ),
  "the profile lists the dev.ucp.shopping service with its MCP endpoint": ucp(
    "Discovery › Business profile",
    'The profile\'s ucp.services names "dev.ucp.shopping" with its version, spec and mcp {schema, endpoint}.',
  ),
  "the profile lists the checkout capability": ucp(
    "Discovery › Business profile",
    "ucp.capabilities lists dev.ucp.shopping.checkout with its version 2026-01-11, spec and schema.",
  ),
  "the profile lists a payment handler for shared payment tokens": ucp(
    "Payment handlers",
    "The profile's payment.handlers each give id, name, version, spec, config_schema, instrument_schemas and config.",
  ),
  "the payment handler's schemas are served as JSON Schema at /ucp/schemas": ucp(
    "Payment handlers",
    "A handler's config_schema and instrument_schemas are URLs of the JSON Schemas of its configuration and instruments.",
  ),
  "the profile publishes its signing keys as public keys only": ucp(
    "Discovery › Signing keys",
    "signing_keys lists the business's public keys as JWKs with their kid.",
  ),
  "the MCP endpoint lists the five checkout tools": spec1(
    "tools create_checkout, get_checkout, update_checkout, complete_checkout, cancel_checkout.",
  ),
  "a call without _meta.ucp.profile is refused with a UCP error naming it": spec1(
    "Every call carries `_meta.ucp.profile`.",
  ),
  "a platform profile on a host the deployment does not admit is refused": ucp(
    "Negotiation",
    "The business fetches the platform profile named by _meta.ucp.profile; one it cannot fetch or read under its rules is refused with an error.",
  ),
  "a platform on a newer UCP version is refused with version_unsupported": ucp(
    "Negotiation",
    "An unsupported version is refused with code version_unsupported.",
  ),
  "create_checkout answers a priced checkout for a mailed PDF": ucp(
    "Checkout › MCP binding",
    "A checkout has ucp {version, capabilities}, id, line_items with item prices in minor units, status, currency, totals and links.",
  ),
  "get_checkout answers the checkout by its id, and refuses an unknown id": ucp(
    "Checkout › MCP binding",
    "get_checkout, update_checkout, complete_checkout and cancel_checkout take the checkout's id at the top level.",
  ),
  "update_checkout adds the buyer and prices a changed mail order again under the same id": ucp(
    "Checkout › Status",
    "incomplete until what completion needs is known, then ready_for_complete.",
  ),
  "create_checkout refuses manual addresses, letter text and forms at their fields": spec1(
    "It supports PDF orders with Address-type addresses only (no manual addresses, letter text or forms).",
  ),
  "cancel_checkout cancels an unpaid checkout, and its replay answers the same": ucp(
    "Checkout › MCP binding",
    "complete and cancel require idempotency_key (uuid); a canceled checkout has status canceled.",
  ),
  "complete_checkout pays with a shared payment token and places the order once": ucp(
    "Checkout › MCP binding",
    `complete_checkout pays with the payment instrument and the completed checkout carries order {id, permalink_url}; tokens are never echoed back (${PAYING}).`,
  ),
};

/** A checkout member's field path ends with `field`: `$["svc.mailpiece"].letter` or `...["letter"]`. */
function pathEndsWith(path: unknown, field: string): boolean {
  return (
    typeof path === "string" && (path.endsWith(`.${field}`) || path.endsWith(`[${JSON.stringify(field)}]`))
  );
}

/** The total of a checkout, after checking the checkout object's shape. */
function checkCheckout(checkout: Json): number {
  const meta = checkout.ucp as Json;
  assert.ok(isObject(meta), "the checkout has its ucp member");
  assert.equal(meta.version, UCP_SUITE_VERSION, "the checkout answers in UCP 2026-01-11");
  const capabilities = meta.capabilities as Json[];
  assert.ok(
    Array.isArray(capabilities) && capabilities.some((c) => c.name === CHECKOUT_CAPABILITY),
    "the checkout capability is active",
  );
  assert.ok(typeof checkout.id === "string" && checkout.id.length > 0, "the checkout has an id");
  assert.ok(STATUSES.includes(String(checkout.status)), `status ${String(checkout.status)} is a UCP status`);
  assert.equal(checkout.currency, "USD");
  const lines = checkout.line_items as Json[];
  assert.ok(Array.isArray(lines) && lines.length === 1, "one line item: the mailpiece");
  const line = lines[0]!;
  assert.equal(line.quantity, 1);
  const item = line.item as Json;
  assert.ok(isObject(item) && typeof item.id === "string", "the line item names its item");
  assert.ok(Number.isInteger(item.price), "the item's price is an integer of minor units");
  const totals = checkout.totals as Json[];
  assert.ok(Array.isArray(totals) && totals.length > 0, "the checkout has totals");
  for (const total of totals) {
    assert.equal(typeof total.type, "string");
    assert.ok(Number.isInteger(total.amount), `the ${String(total.type)} total is an integer of minor units`);
  }
  const total = totals.find((t) => t.type === "total");
  assert.ok(total, "a total of type total");
  assert.ok(Array.isArray(checkout.links), "the checkout has links");
  if (checkout.continue_url !== undefined) absoluteUrl(checkout.continue_url, "continue_url");
  if (checkout.messages !== undefined) assert.ok(Array.isArray(checkout.messages), "messages is a list");
  return total.amount as number;
}

/** The UCP errors of a refused call: a JSON-RPC error whose data is {status: "error", errors: [...]}. */
async function refusal(call: Promise<CallToolResult>, what: string): Promise<Json[]> {
  const error = await call.then(
    (result) =>
      assert.fail(
        `${what}: expected a JSON-RPC error, got ${result.isError ? "a tool error" : "a result"}: ${textOf(result).slice(0, 300)}`,
      ),
    (e: unknown) => e as { code?: unknown; data?: unknown },
  );
  assert.equal(typeof error.code, "number", `${what}: a JSON-RPC error (${String(error)})`);
  const data = error.data as Json | undefined;
  assert.ok(
    isObject(data) && data.status === "error",
    `${what}: the error's data is a UCP error: ${String(error)}`,
  );
  const errors = data.errors as Json[];
  assert.ok(Array.isArray(errors) && errors.length > 0, `${what}: the UCP error lists its errors`);
  for (const detail of errors) {
    assert.match(String(detail.code), /^[a-z][a-z0-9_]*$/, `${what}: a stable snake_case code`);
    assert.ok(typeof detail.message === "string" && detail.message.length > 0, `${what}: a message`);
    assert.ok(SEVERITIES.includes(String(detail.severity)), `${what}: severity ${String(detail.severity)}`);
  }
  return errors;
}

/** The structured checkout of a successful call. */
function answered(name: string, result: CallToolResult): Json {
  assert.ok(!result.isError, `${name} failed: ${textOf(result).slice(0, 800)}`);
  assert.ok(isObject(result.structuredContent), `${name} answers the checkout as structured content`);
  return result.structuredContent;
}

function platformProfile(version: string): PlatformProfileDocument {
  return {
    ucp: {
      version,
      capabilities: [
        {
          name: CHECKOUT_CAPABILITY,
          version,
          spec: "https://ucp.dev/specification/checkout",
          schema: "https://ucp.dev/schemas/shopping/checkout.json",
        },
      ],
    },
  };
}

/**
 * The UCP checkout suite: the business profile at /.well-known/ucp, the payment handler's schemas, and the five
 * checkout tools over MCP at the profile's endpoint, every request through the target. Checkout calls need a
 * platform profile the deployment may fetch (options.platformProfile). It creates and cancels checkouts; it pays
 * one only when the profile's payment handler says its card payments are simulated (`config.simulated: true`).
 */
export function ucpSuite(target: HttpTarget, options: UcpSuiteOptions = {}): Suite<UcpSuiteTestName> {
  const address = options.address ?? DEFAULT_SUITE_ADDRESSES.us;
  const given = options.platformProfile;
  const publish = typeof given === "function" ? given : undefined;
  const profileUrls = new Map<string, Promise<string>>();
  /** The URL of a platform profile of `version`, published once; undefined without options.platformProfile. */
  const profileUrl = (version = UCP_SUITE_VERSION): Promise<string> | undefined => {
    if (typeof given === "string") return version === UCP_SUITE_VERSION ? Promise.resolve(given) : undefined;
    if (!publish) return undefined;
    let url = profileUrls.get(version);
    if (!url) {
      url = Promise.resolve(publish(platformProfile(version)));
      profileUrls.set(version, url);
    }
    return url;
  };

  let profileAnswer: Promise<Json> | undefined;
  const businessProfile = () => {
    profileAnswer ??= (async () => {
      const res = await target.fetch("/.well-known/ucp");
      assert.equal(res.status, 200, "GET /.well-known/ucp answers 200");
      assert.match(res.headers.get("content-type") ?? "", /json/, "the profile is JSON");
      const body = (await res.json()) as Json;
      assert.ok(isObject(body.ucp), "the profile has its ucp member");
      return body;
    })();
    return profileAnswer;
  };
  const endpointPath = async (): Promise<string> => {
    const services = ((await businessProfile()).ucp as Json).services as Json | undefined;
    const mcp = (services?.[SHOPPING_SERVICE] as Json | undefined)?.mcp as Json | undefined;
    const url = absoluteUrl(mcp?.endpoint, `${SHOPPING_SERVICE} mcp.endpoint`);
    return `${url.pathname}${url.search}`;
  };
  const sptHandler = async (): Promise<Json> => {
    const handlers = ((await businessProfile()).payment as Json | undefined)?.handlers as Json[] | undefined;
    assert.ok(Array.isArray(handlers) && handlers.length > 0, "the profile lists payment handlers");
    const handler = handlers.find((h) => /shared_payment_token/.test(`${String(h.id)} ${String(h.name)}`));
    assert.ok(handler, "a payment handler takes shared payment tokens");
    return handler;
  };
  const checkoutSession = async <T>(body: (s: McpSession) => Promise<T>) =>
    withMcpSession(target, await endpointPath(), body);

  let pdf: Promise<string> | undefined;
  const mailpiece = async (overrides: Json = {}): Promise<Json> => {
    pdf ??= makePdf(2).then(pdfDataUrl);
    return {
      pdf: await pdf,
      sender_name: "Ada Sender",
      sender_address_type: "Address",
      sender_address_id: address.id,
      sender_address_text: address.text,
      recipient_name: "Grace Recipient",
      recipient_address_type: "Address",
      recipient_address_id: address.id,
      recipient_address_text: address.text,
      ...overrides,
    };
  };
  const createArgs = async (overrides: Json = {}, extra: Json = {}) => ({
    line_items: LINE_ITEMS,
    [MAILPIECE_MEMBER]: await mailpiece({
      file_name: `conformance-${crypto.randomUUID()}.pdf`,
      ...overrides,
    }),
    ...extra,
  });

  /**
   * Runs `body` with a call of the checkout tools that carries the profile's URL in `_meta.ucp.profile`, or answers
   * not applicable without a platform profile.
   */
  const withProfile = async (
    body: (call: (name: string, args: Json) => Promise<CallToolResult>) => Promise<void>,
    version?: string,
  ): ReturnType<ContractTest["run"]> => {
    const pending = profileUrl(version);
    if (!pending) {
      return notApplicable(
        version === undefined ? NO_PROFILE : `${NO_PROFILE}, as a function that publishes one`,
      );
    }
    const url = await pending;
    await checkoutSession((s) => body((name, args) => s.call(name, args, { ucp: { profile: url } })));
  };

  /** The checkout the create, get and update checks share: made once per suite, without a buyer. */
  let first: Promise<Json> | undefined;
  const firstCheckout = (call: (name: string, args: Json) => Promise<CallToolResult>) => {
    first ??= createArgs().then(async (args) =>
      answered("create_checkout", await call("create_checkout", args)),
    );
    return first;
  };

  const tests: Record<UcpSuiteTestName, ContractTest["run"]> = {
    "the business profile at /.well-known/ucp names UCP version 2026-01-11": async () => {
      const meta = (await businessProfile()).ucp as Json;
      assert.equal(meta.version, UCP_SUITE_VERSION, "the profile's ucp.version");
    },

    "the profile lists the dev.ucp.shopping service with its MCP endpoint": async () => {
      const services = ((await businessProfile()).ucp as Json).services as Json | undefined;
      const service = services?.[SHOPPING_SERVICE] as Json | undefined;
      assert.ok(isObject(service), `ucp.services lists ${SHOPPING_SERVICE}`);
      assert.match(String(service.version), /^\d{4}-\d{2}-\d{2}$/, "the service's version is a date");
      absoluteUrl(service.spec, "the service's spec");
      const mcp = service.mcp as Json | undefined;
      assert.ok(isObject(mcp), "the service has its MCP binding");
      absoluteUrl(mcp.schema, "mcp.schema");
      absoluteUrl(mcp.endpoint, "mcp.endpoint");
    },

    "the profile lists the checkout capability": async () => {
      const capabilities = ((await businessProfile()).ucp as Json).capabilities as Json[];
      assert.ok(Array.isArray(capabilities), "ucp.capabilities is a list");
      const checkout = capabilities.find((c) => c.name === CHECKOUT_CAPABILITY);
      assert.ok(checkout, `ucp.capabilities lists ${CHECKOUT_CAPABILITY}`);
      assert.equal(checkout.version, UCP_SUITE_VERSION);
      absoluteUrl(checkout.spec, "the capability's spec");
      absoluteUrl(checkout.schema, "the capability's schema");
    },

    "the profile lists a payment handler for shared payment tokens": async () => {
      await sptHandler();
      for (const handler of ((await businessProfile()).payment as Json).handlers as Json[]) {
        for (const field of ["id", "name", "version", "spec"]) {
          assert.equal(typeof handler[field], "string", `a handler's ${field}`);
        }
        absoluteUrl(handler.config_schema, "config_schema");
        const instruments = handler.instrument_schemas as unknown[];
        assert.ok(Array.isArray(instruments) && instruments.length > 0, "instrument_schemas lists schemas");
        for (const url of instruments) absoluteUrl(url, "an instrument schema");
        assert.ok(isObject(handler.config), "a handler's config");
      }
    },

    "the payment handler's schemas are served as JSON Schema at /ucp/schemas": async () => {
      const handler = await sptHandler();
      const urls = [handler.config_schema, ...(handler.instrument_schemas as unknown[])].map((u) =>
        absoluteUrl(u, "a handler schema"),
      );
      const own = urls.filter((url) => url.pathname.startsWith("/ucp/schemas/"));
      assert.ok(own.length > 0, "the handler's schemas are served by the deployment at /ucp/schemas");
      for (const url of own) {
        const res = await target.fetch(url.pathname);
        assert.equal(res.status, 200, `${url.pathname} answers 200`);
        const schema = (await res.json()) as Json;
        assert.equal(schema.$id, url.href, `${url.pathname} names itself with $id`);
        assert.ok(typeof schema.$schema === "string" || typeof schema.type === "string", "a JSON Schema");
      }
      const unknown = await target.fetch("/ucp/schemas/no-such-schema.json");
      await unknown.body?.cancel();
      assert.equal(unknown.status, 404, "an unknown schema is 404");
    },

    "the profile publishes its signing keys as public keys only": async () => {
      const keys = (await businessProfile()).signing_keys as Json[];
      assert.ok(Array.isArray(keys) && keys.length > 0, "signing_keys lists keys");
      for (const key of keys) {
        assert.ok(typeof key.kid === "string" && key.kid.length > 0, "a key has its kid");
        assert.equal(typeof key.kty, "string", "a key is a JWK");
        if (key.kty === "EC") {
          for (const member of ["crv", "x", "y"])
            assert.equal(typeof key[member], "string", `an EC key's ${member}`);
        }
        const secret = PRIVATE_JWK_MEMBERS.filter((member) => member in key);
        assert.deepEqual(secret, [], `key ${String(key.kid)} publishes no private member`);
      }
    },

    "the MCP endpoint lists the five checkout tools": () =>
      checkoutSession(async (s) => {
        const names = s.tools.map((tool) => tool.name);
        assert.deepEqual(
          CHECKOUT_TOOLS.filter((name) => !names.includes(name)),
          [],
          `the five checkout tools are listed; listed: ${names.join(", ")}`,
        );
        for (const tool of s.tools)
          assert.equal(tool.inputSchema.type, "object", `${tool.name}'s input schema`);
      }),

    "a call without _meta.ucp.profile is refused with a UCP error naming it": async () => {
      const args = await createArgs();
      await checkoutSession(async (s) => {
        const errors = await refusal(s.call("create_checkout", args), "create_checkout without a profile");
        assert.ok(
          errors.some(
            (e) =>
              String(e.path ?? "").includes("_meta.ucp.profile") ||
              String(e.message).includes("_meta.ucp.profile"),
          ),
          `the error names _meta.ucp.profile: ${JSON.stringify(errors)}`,
        );
      });
    },

    "a platform profile on a host the deployment does not admit is refused": async () => {
      const args = await createArgs();
      await checkoutSession(async (s) => {
        await refusal(
          s.call("create_checkout", args, { ucp: { profile: UNADMITTED_PROFILE } }),
          "a profile at a private address",
        );
      });
    },

    "a platform on a newer UCP version is refused with version_unsupported": () =>
      withProfile(async (call) => {
        const errors = await refusal(call("create_checkout", await createArgs()), "a newer platform");
        assert.equal(errors[0]!.code, "version_unsupported");
      }, "2099-01-01"),

    "create_checkout answers a priced checkout for a mailed PDF": () =>
      withProfile(async (call) => {
        const checkout = await firstCheckout(call);
        const total = checkCheckout(checkout);
        assert.equal(checkout.status, "incomplete", "without a buyer the checkout is incomplete");
        assert.ok(total >= 340 && total <= 20_000, `the total ${total} is within a machine order's bounds`);
      }),

    "get_checkout answers the checkout by its id, and refuses an unknown id": () =>
      withProfile(async (call) => {
        const created = await firstCheckout(call);
        const got = answered("get_checkout", await call("get_checkout", { id: created.id }));
        checkCheckout(got);
        assert.equal(got.id, created.id);
        assert.deepEqual(got.totals, created.totals, "the same totals");
        await refusal(call("get_checkout", { id: `chk_${"0".repeat(32)}` }), "an unknown checkout id");
      }),

    "update_checkout adds the buyer and prices a changed mail order again under the same id": () =>
      withProfile(async (call) => {
        const created = await firstCheckout(call);
        const before = checkCheckout(created);
        const ready = answered(
          "update_checkout",
          await call("update_checkout", { id: created.id, buyer: BUYER }),
        );
        checkCheckout(ready);
        assert.equal(ready.id, created.id);
        assert.equal(ready.status, "ready_for_complete", "with the buyer the checkout is ready to complete");
        assert.equal((ready.buyer as Json | undefined)?.email, BUYER.email, "the buyer is kept");
        const member = await mailpiece({
          file_name: `conformance-${crypto.randomUUID()}.pdf`,
          certified: true,
        });
        const changed = answered(
          "update_checkout",
          await call("update_checkout", { id: created.id, [MAILPIECE_MEMBER]: member }),
        );
        const after = checkCheckout(changed);
        assert.equal(changed.id, created.id, "the checkout keeps its id");
        assert.ok(after > before, `certified mail is priced again and costs more (${before} -> ${after})`);
      }),

    "create_checkout refuses manual addresses, letter text and forms at their fields": () =>
      withProfile(async (call) => {
        const manual = await refusal(
          call(
            "create_checkout",
            await createArgs({
              recipient_address_type: "Manual",
              recipient_address_id: undefined,
              recipient_address_text: undefined,
              recipient_address_manual: {
                line1: "1 Main St",
                city: "Springfield",
                state: "IL",
                zip: "62701",
              },
            }),
          ),
          "a manual address",
        );
        assert.ok(
          manual.some(
            (e) =>
              pathEndsWith(e.path, "recipient_address_manual") ||
              pathEndsWith(e.path, "recipient_address_type"),
          ),
          `the manual address is refused at its field: ${JSON.stringify(manual)}`,
        );
        const letter = await refusal(
          call("create_checkout", await createArgs({ pdf: undefined, letter: "Dear Grace" })),
          "letter text",
        );
        assert.ok(
          letter.some((e) => pathEndsWith(e.path, "letter")),
          `refused at letter: ${JSON.stringify(letter)}`,
        );
        const form = await refusal(
          call("create_checkout", await createArgs({ form: { slug: "x", fields: {} } })),
          "a form",
        );
        assert.ok(
          form.some((e) => pathEndsWith(e.path, "form")),
          `refused at form: ${JSON.stringify(form)}`,
        );
      }),

    "cancel_checkout cancels an unpaid checkout, and its replay answers the same": () =>
      withProfile(async (call) => {
        const created = answered(
          "create_checkout",
          await call("create_checkout", await createArgs({}, { buyer: BUYER })),
        );
        const key = crypto.randomUUID();
        const canceled = answered(
          "cancel_checkout",
          await call("cancel_checkout", { id: created.id, idempotency_key: key }),
        );
        checkCheckout(canceled);
        assert.equal(canceled.status, "canceled");
        const replay = answered(
          "cancel_checkout",
          await call("cancel_checkout", { id: created.id, idempotency_key: key }),
        );
        assert.equal(replay.status, "canceled", "the replay answers the canceled checkout");
        const got = answered("get_checkout", await call("get_checkout", { id: created.id }));
        assert.equal(got.status, "canceled", "the checkout stays canceled");
      }),

    "complete_checkout pays with a shared payment token and places the order once": async () => {
      const handler = await sptHandler();
      if ((handler.config as Json | undefined)?.simulated !== true) return notApplicable(PAYING);
      return withProfile(async (call) => {
        const created = answered(
          "create_checkout",
          await call("create_checkout", await createArgs({}, { buyer: BUYER })),
        );
        const token = "spt_test_ok";
        const args = {
          id: created.id,
          idempotency_key: crypto.randomUUID(),
          payment: {
            instruments: [
              {
                id: "instrument_1",
                handler_id: handler.id,
                type: "card",
                credential: { type: "shared_payment_token", token },
              },
            ],
          },
        };
        const completed = answered("complete_checkout", await call("complete_checkout", args));
        checkCheckout(completed);
        assert.equal(completed.status, "completed");
        const order = completed.order as Json | undefined;
        assert.ok(
          isObject(order) && typeof order.id === "string",
          "the completed checkout carries its order",
        );
        absoluteUrl(order.permalink_url, "order.permalink_url");
        assert.ok(!JSON.stringify(completed).includes(token), "the token is never echoed back");
        const again = answered("complete_checkout", await call("complete_checkout", args));
        assert.equal(again.status, "completed");
        assert.equal((again.order as Json).id, order.id, "a retry with the same key answers the same order");
        const got = answered("get_checkout", await call("get_checkout", { id: created.id }));
        assert.equal(got.status, "completed");
      });
    },
  };

  return {
    name: `UCP checkout (${target.label})`,
    sideEffects:
      "creates three checkouts and reprices one (four unpaid drafts) and cancels one; completes one only when the payment handler's card payments are simulated",
    tests: UCP_SUITE_TEST_NAMES.map((name) => ({ name, requirement: REQUIREMENTS[name], run: tests[name] })),
  };
}
