import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { ISSUE_CODES, WARNING_CODES } from "./issues.ts";
import { OrderRequest } from "./order-request-schema.ts";
import { type OrderValidation, validateOrderRequest } from "./validate-order-request.ts";

const ERROR_CODES = ISSUE_CODES.filter((code) => !WARNING_CODES.includes(code));

/** What every answer satisfies, whatever the input. */
function expectWellFormed(result: OrderValidation): void {
  if (result.ok) {
    const { order, warnings } = result;
    expect(typeof order.request_id).toBe("string");
    expect(typeof order.buyer_email).toBe("string");
    expect(typeof order.sender.name).toBe("string");
    expect(typeof order.sender.country).toBe("string");
    if (order.bulk) {
      expect(order.recipient).toBeUndefined();
      expect(order.document).toBeUndefined();
      expect(order.bulk.recipient_count).toBeGreaterThan(0);
    } else {
      expect(order.recipient).toBeDefined();
      expect(order.document).toBeDefined();
    }
    for (const warning of warnings) {
      expect(WARNING_CODES).toContain(warning.code);
      expect(typeof warning.path).toBe("string");
    }
    return;
  }
  expect(result.issues.length).toBeGreaterThan(0);
  for (const issue of result.issues) {
    expect(ERROR_CODES).toContain(issue.code);
    expect(typeof issue.path).toBe("string");
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

const KEYS = Object.keys(OrderRequest.properties);
const examples = Object.values(EXAMPLE_ORDER_REQUESTS);

/** One change to a valid order: drop a field, replace one (top level or one level down), or add one. */
type Mutation =
  | { op: "delete"; key: string; inner?: string }
  | { op: "set"; key: string; inner?: string; value: unknown }
  | { op: "add"; key: string; value: unknown };

const interesting = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    "",
    " ",
    "US|1",
    "data:application/pdf;base64,",
    "https://",
    "http://x",
    "{{x}}",
    "recipient_name,line1,city,zip\n",
    "Manual",
    "Address",
    "postcard",
    "email",
    "physical",
    "priority",
    true,
    false,
    0,
    -1,
    1e308,
    null,
  ),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constant("delete" as const),
    key: fc.constantFrom(...KEYS),
    inner: fc.option(fc.string(), { nil: undefined }),
  }),
  fc.record({
    op: fc.constant("set" as const),
    key: fc.constantFrom(...KEYS),
    inner: fc.option(
      fc.constantFrom(
        "line1",
        "zip",
        "countryCode",
        "body",
        "signature",
        "slug",
        "csv_content",
        "content_mode",
      ),
      {
        nil: undefined,
      },
    ),
    value: interesting,
  }),
  fc.record({ op: fc.constant("add" as const), key: fc.string(), value: interesting }),
);

function mutate(order: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
  const body = structuredClone(order);
  for (const m of mutations) {
    const holder = m.op !== "add" && m.inner !== undefined ? body[m.key] : body;
    if (typeof holder !== "object" || holder === null || Array.isArray(holder)) continue;
    const target = holder as Record<string, unknown>;
    const key = m.op !== "add" && m.inner !== undefined ? m.inner : m.key;
    if (m.op === "delete") delete target[key];
    else
      Object.defineProperty(target, key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return body;
}

describe("validateOrderRequest never throws", () => {
  it("on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expectWellFormed(validateOrderRequest(value));
      }),
      { numRuns: 500 },
    );
  });

  it("on arbitrary JavaScript values", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withNullPrototype: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withBigInt: true,
          withTypedArray: true,
          withSparseArray: true,
          withBoxedValues: true,
        }),
        (value) => {
          expectWellFormed(validateOrderRequest(value));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("on objects made of the request's own keys", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), interesting), (body) => {
        expectWellFormed(validateOrderRequest(body));
      }),
      { numRuns: 500 },
    );
  });

  it("on mutated valid orders, without changing them", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...examples),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (order, changes) => {
          const body = mutate(order as Record<string, unknown>, changes);
          const snapshot = structuredClone(body);
          const result = validateOrderRequest(body);
          expectWellFormed(result);
          expect(body).toEqual(snapshot);
          expect(validateOrderRequest(body)).toEqual(result);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("on bodies whose keys shadow Object.prototype", () => {
    const body = JSON.parse(
      '{"__proto__": {"request_id": 1}, "constructor": 1, "toString": "x", "hasOwnProperty": null, "valueOf": {}}',
    );
    const result = validateOrderRequest(body);
    expectWellFormed(result);
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "valueOf",
        "request_id",
      ]),
    );
  });
});
