import {
  checkedTarget,
  flowerLetterRequest,
  letterOrder,
  makePdf,
  mortgageFormOrder,
  pdfDataUrl,
} from "@mailpiece/conformance";
import { STATUS_TABLE } from "@mailpiece/machine";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientIp,
  expectHealthy,
  expectNothingLogged,
  fuzz,
  issuesOf,
  leakedSecret,
  pathNamesField,
  printable,
  RUNS,
  sentJson,
  Verdict,
} from "./checks.ts";
import { refusedDials } from "./dial-guard.ts";
import { type Answer, type Call, type FuzzServer, MAX_BODY_BYTES, startFuzzServer } from "./harness.ts";
import {
  contentTypes,
  hostileValue,
  longStringBody,
  malformedBodies,
  methods,
  oddHeaders,
  oddQuery,
  pathSegments,
} from "./hostile.ts";
import { machineHint } from "./machine-hints.ts";
import { machineFieldNames } from "./rpc.ts";
import { fieldNames, type Hint, nearValidValue, type Schema, validValue } from "./schema-arbitrary.ts";

/**
 * The machine API (spec 1) driven from its own description: every operation of GET /openapi.json, with bodies built
 * from its request schemas (valid, one field changed, hostile), path parameters, query strings, headers, content
 * types and methods. Every answer must be documented by the description (status, content type, body schema), never
 * 5xx, an error body must carry a code of the machine API's status table at that code's status, every issue must
 * name a field of the request, and no answer may repeat a secret.
 *
 * The 503 answers the description lists for a missing optional part (payment_rail_unavailable without a rail,
 * florist_unavailable without a florist, service_busy past the document workers or the body budget,
 * store_unavailable without a store) cannot occur here: the deployment has both rails, the simulated florist, a
 * document worker and its default body budget, and a 503 fails the property like any 5xx.
 */

type Operation = {
  method: string;
  template: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Schema }[];
  bodies: Record<string, Schema>;
};

let server: FuzzServer;
let openapi: Schema;
let operations: Operation[];
let known: Set<string>;
let pdf: Uint8Array;
let postcardPdf: Uint8Array;
let formSlugs: string[];
let hint: Hint;
/** The fuzzer's own machine resources, named in generated requests by placeholders ($ORDER_ID...). */
const own: Record<string, string> = {};

/** A request with its placeholders filled: fresh upload slots, the fuzzer's order, flower letter and preview. */
async function resolvePlaceholders(call: Call): Promise<Call> {
  const body = typeof call.body === "string" ? call.body : "";
  let text = `${call.path}\u0000${body}`;
  if (!text.includes("$")) return call;
  const slot = async (fill: boolean) => {
    const opened = await server.core.createUpload({
      file_name: "fuzz.pdf",
      content_type: "application/pdf",
      content_length: pdf.byteLength,
      clientKey: "fuzz",
    });
    if (fill) await server.core.fillUpload(opened.upload_token, pdf);
    return opened.upload_token;
  };
  while (text.includes("$UPLOAD_SLOT")) text = text.replace("$UPLOAD_SLOT", await slot(false));
  while (text.includes("$UPLOAD_FILLED")) text = text.replace("$UPLOAD_FILLED", await slot(true));
  for (const [name, value] of Object.entries(own)) text = text.replaceAll(`$${name}`, value);
  const [path, filled] = text.split("\u0000") as [string, string];
  return { ...call, path, ...(typeof call.body === "string" ? { body: filled } : {}) };
}

/** Checks an answer against the description: the answer given is the last one sent. */
let describedBy: (call: Call, answer: Answer) => Promise<string | undefined>;

beforeAll(async () => {
  server = await startFuzzServer();
  pdf = await makePdf(1);
  postcardPdf = await makePdf(2, [6.25 * 72, 4.25 * 72]);
  const doc = await server.send({ method: "GET", path: "/openapi.json" });
  expect(doc.status).toBe(200);
  openapi = doc.json as Schema;
  operations = [];
  for (const [template, item] of Object.entries(openapi.paths as Record<string, Record<string, Schema>>)) {
    // The deployment's description holds the Projects API too: projects.test.ts fuzzes it, with its keys.
    if (template.startsWith("/api/v1/")) continue;
    for (const [method, op] of Object.entries(item)) {
      const content = ((op.requestBody as Schema | undefined)?.content ?? {}) as Record<
        string,
        { schema: Schema }
      >;
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: (op.parameters as Operation["parameters"] | undefined) ?? [],
        bodies: Object.fromEntries(Object.entries(content).map(([type, media]) => [type, media.schema])),
      });
    }
  }
  known = await machineFieldNames(server);
  const machine = machineHint({ pdf, postcardPdf, formSlugs: () => formSlugs });
  hint = (name, schema) =>
    name === "pdf"
      ? fc.oneof(machine(name, schema)!, fc.constant({ upload_token: "$UPLOAD_FILLED" }))
      : machine(name, schema);
  // An unpaid order (its 402 names it), a flower letter, and a preview link of a validated letter.
  const json: [string, string] = ["content-type", "application/json"];
  const order = letterOrder();
  const unpaid = await server.send({
    method: "POST",
    path: "/api/machine/orders",
    headers: [json],
    body: JSON.stringify(order),
  });
  own.ORDER_ID = (unpaid.json as { order: { order_id: string } }).order.order_id;
  own.ORDER_REQUEST_ID = order.request_id as string;
  const flower = await server.send({
    method: "POST",
    path: "/api/machine/flower-letters",
    headers: [json],
    body: JSON.stringify(flowerLetterRequest()),
  });
  own.FLOWER_ID = (flower.json as { flower_letter: { order_id: string } }).flower_letter.order_id;
  const validated = await server.send({
    method: "POST",
    path: "/api/machine/orders/validate",
    headers: [json],
    body: JSON.stringify(letterOrder()),
  });
  const preview = new URL((validated.json as { preview_url: string }).preview_url);
  own.PREVIEW_FILE = preview.pathname.split("/").at(-1)!;
  own.PREVIEW_EXPIRES = preview.searchParams.get("expires")!;
  own.PREVIEW_SIG = preview.searchParams.get("sig")!;
  formSlugs = (
    (await server.send({ method: "GET", path: "/api/machine/forms?limit=200" })).json as {
      forms: { slug: string }[];
    }
  ).forms.map((form) => form.slug);
  let pending: Answer = doc;
  const target = checkedTarget({
    label: "fuzz",
    fetch: async () =>
      new Response(
        pending.status === 204 || pending.status === 304 || pending.text === "" ? null : pending.text,
        {
          status: pending.status,
          headers: pending.headers,
        },
      ),
  });
  await target.fetch("/openapi.json");
  describedBy = async (call, answer) => {
    pending = answer;
    try {
      await target.fetch(call.path, { method: call.method });
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const JSON_TYPE: [string, string] = ["content-type", "application/json"];

/** The path of an operation with its parameters filled: plausible values or hostile segments. */
function pathFor(op: Operation, hostile: boolean): fc.Arbitrary<string> {
  const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const plausible = (name: string): fc.Arbitrary<string> => {
    if (name === "slug") return fc.constantFrom(...formSlugs, "mortgage-servicing-error-packet");
    if (name === "file")
      return fc.oneof(fc.constant("$PREVIEW_FILE"), fc.stringMatching(/^[0-9a-f]{64}\.pdf$/));
    if (name === "token")
      return fc.oneof(
        fc.constantFrom("$UPLOAD_SLOT", "$UPLOAD_FILLED"),
        fc.stringMatching(/^[A-Za-z0-9_-]{20,60}$/),
      );
    return fc.oneof(
      fc.constantFrom("$ORDER_ID", "$ORDER_REQUEST_ID", "$FLOWER_ID"),
      fc.uuid(),
      fc.uuid().map((id) => `${id}.html`),
      fc.uuid().map((id) => id.toUpperCase()),
    );
  };
  return fc
    .tuple(...names.map((name) => (hostile ? fc.oneof(pathSegments, plausible(name)) : plausible(name))))
    .map((values) => {
      let path = op.template;
      names.forEach((name, index) => {
        path = path.replace(`{${name}}`, values[index]!);
      });
      return path;
    });
}

/** The declared query parameters with values of their schema, sometimes left out. */
function queryFor(op: Operation): fc.Arbitrary<string> {
  const query = op.parameters.filter((p) => p.in === "query");
  if (query.length === 0) return fc.constant("");
  if (op.template.includes("{file}")) {
    return fc.oneof(
      fc.constant("?expires=$PREVIEW_EXPIRES&sig=$PREVIEW_SIG"),
      fc.constantFrom("?expires=$PREVIEW_EXPIRES&sig=x", "?expires=1&sig=$PREVIEW_SIG", "", "?expires=&sig="),
    );
  }
  return fc
    .tuple(
      ...query.map((p) =>
        fc.option(
          validValue(p.schema ?? { type: "string" }, { root: openapi }).map(
            (v) => `${p.name}=${encodeURIComponent(String(v))}`,
          ),
          { nil: undefined },
        ),
      ),
    )
    .map((pairs) => {
      const present = pairs.filter((p): p is string => p !== undefined);
      return present.length === 0 ? "" : `?${present.join("&")}`;
    });
}

/** Values of the header parameters (payment credentials), sometimes left out. */
function headersFor(op: Operation): fc.Arbitrary<[string, string][]> {
  const headers = op.parameters.filter((p) => p.in === "header");
  if (headers.length === 0) return fc.constant([]);
  const credential = fc.oneof(
    fc.base64String({ maxLength: 200 }),
    fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64")),
    fc
      .record({
        x402Version: fc.constantFrom(1, 2, 99),
        scheme: fc.constantFrom("exact", "upto"),
        payload: fc.object(),
      })
      .map((v) => Buffer.from(JSON.stringify(v)).toString("base64")),
    fc.string({ maxLength: 60 }).map((s) => `Payment ${Buffer.from(s).toString("base64url")}`),
    fc.constantFrom("Payment", "Payment ", "Bearer x", "Payment !!!", "Payment e30"),
  );
  return fc
    .tuple(
      ...headers.map((h) =>
        fc.option(
          credential.map((value): [string, string] => [h.name, value]),
          { nil: undefined },
        ),
      ),
    )
    .map((pairs) => pairs.filter((p): p is [string, string] => p !== undefined));
}

/** A multipart form with one file field: the PDF, another file, or no file. */
function multipartBody(): fc.Arbitrary<{ type: string; body: Uint8Array }> {
  return fc
    .tuple(
      fc.constantFrom("file", "pdf", "pdfFile", "other", ""),
      fc.oneof(
        fc.constant(pdf),
        fc.constant(new TextEncoder().encode("%PDF-1.7\nnot really a pdf")),
        fc.uint8Array({ maxLength: 300 }),
        fc.constant(new Uint8Array(0)),
      ),
      fc.constantFrom("a.pdf", "", "../../x.pdf", "名前.pdf", "a\u0000.pdf"),
      fc.constantFrom("application/pdf", "text/plain", ""),
    )
    .map(([field, bytes, name, type]) => {
      const boundary = "fuzzboundary";
      const head = new TextEncoder().encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n${type ? `Content-Type: ${type}\r\n` : ""}\r\n`,
      );
      const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
      const body = new Uint8Array(head.length + bytes.length + tail.length);
      body.set(head, 0);
      body.set(bytes, head.length);
      body.set(tail, head.length + bytes.length);
      return { type: `multipart/form-data; boundary=${boundary}`, body };
    });
}

/** Valid bodies of a JSON schema: built from the schema, or a known-good fixture of the operation with fields from it. */
function validBody(op: Operation, schema: Schema): fc.Arbitrary<unknown> {
  const fromSchema = validValue(schema, { root: openapi, hint });
  const fixture = op.template.includes("flower-letters")
    ? fc.constant(null).map(() => flowerLetterRequest())
    : op.template.includes("/orders")
      ? fc.oneof(
          fc.constant(null).map(() => letterOrder()),
          fc.constant(null).map(() => mortgageFormOrder()),
          fc.constant(null).map(() =>
            letterOrder({
              letter: undefined,
              pdf: pdfDataUrl(postcardPdf),
              mailpiece_type: "postcard",
              postcard_size: "4x6",
            }),
          ),
        )
      : undefined;
  if (!fixture) return fromSchema;
  const optionNames = [
    "color",
    "double_sided",
    "mail_class",
    "certified",
    "certified_return_receipt",
    "format",
  ];
  const properties = resolve(schema).properties as Record<string, Schema> | undefined;
  const options = fc.record(
    Object.fromEntries(
      optionNames
        .filter((name) => properties?.[name])
        .map((name) => [name, validValue(properties![name]!, { root: openapi })]),
    ),
    { requiredKeys: [] },
  );
  return fc.oneof(
    fromSchema,
    fc.tuple(fixture, options).map(([body, extra]) => ({ ...(body as object), ...extra })),
  );
}

function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === "string") {
    const name = current.$ref.split("/").at(-1)!;
    current = (openapi.components as { schemas: Record<string, Schema> }).schemas[name] ?? {};
  }
  return current;
}

/** One request to an operation, built by `body` from the operation's JSON schema (or a multipart form). */
function requestTo(
  body: (op: Operation, schema: Schema) => fc.Arbitrary<unknown>,
  hostilePath = false,
): fc.Arbitrary<Call> {
  return fc
    .constantFrom(...operations)
    .chain((op) => {
      const json = op.bodies["application/json"];
      const multipart = op.bodies["multipart/form-data"];
      const payload: fc.Arbitrary<{ headers: [string, string][]; body?: string | Uint8Array }> =
        op.method !== "POST"
          ? fc.constant({ headers: [] })
          : json
            ? fc.oneof(
                body(op, json).map((value) => ({ headers: [JSON_TYPE], body: JSON.stringify(value) })),
                ...(multipart
                  ? [
                      multipartBody().map(({ type, body }) => ({
                        headers: [["content-type", type]] as [string, string][],
                        body,
                      })),
                    ]
                  : []),
              )
            : multipart
              ? multipartBody().map(({ type, body }) => ({
                  headers: [["content-type", type]] as [string, string][],
                  body,
                }))
              : fc.constant({ headers: [] });
      return fc.record({
        method: fc.constant(op.method),
        path: fc.tuple(pathFor(op, hostilePath), queryFor(op)).map(([path, query]) => `${path}${query}`),
        headers: fc.tuple(headersFor(op), payload).map(([credentials, p]) => [...credentials, ...p.headers]),
        body: payload.map((p) => p.body),
        ip: clientIp,
      });
    })
    .map((call) => printable(call.body === undefined ? { ...call, body: undefined } : call));
}

/**
 * What every answer of the machine API must be, whatever the request: never 5xx; an error is a JSON body with a code
 * of the status table at that code's status; each issue names a field of the request; no secret repeated. With
 * `described`, also exactly as /openapi.json describes the operation's answers (status, required headers, content
 * type and body schema).
 */
async function check(generated: Call, described = false): Promise<void> {
  const call = await resolvePlaceholders(generated);
  const answer = await server.send(call);
  const verdict = new Verdict(call, answer);
  verdict.expect(answer.status < 500, `answered ${answer.status}: the machine API never answers 5xx here`);
  // A HEAD answer has no body (RFC 9110): only its status is checked.
  const head = call.method === "HEAD";
  if (described && !head) {
    const undocumented = await describedBy(call, answer);
    verdict.expect(undocumented === undefined, `not as /openapi.json describes it: ${undocumented}`);
  }
  if (head) {
    verdict.expect(answer.text === "", "a HEAD answer with a body");
  } else if (answer.status >= 400 && answer.status !== 402) {
    const body = answer.json as { error?: unknown } | undefined;
    verdict.expect(body !== undefined, "an error answer whose body is not JSON");
    const code = body?.error;
    const inTable = typeof code === "string" && Object.hasOwn(STATUS_TABLE, code);
    verdict.expect(inTable, `error code ${JSON.stringify(code)} is not in the machine API's status table`);
    if (inTable) {
      const status = STATUS_TABLE[code as keyof typeof STATUS_TABLE].status;
      verdict.expect(
        status === answer.status,
        `error code ${String(code)} belongs to ${status}, not ${answer.status}`,
      );
    }
    const { ok, issues } = issuesOf(body);
    verdict.expect(ok, "issues is not a list of {path, code, message}");
    const request = sentJson(call);
    for (const issue of issues) {
      verdict.expect(
        pathNamesField(issue.path, request, known),
        `issue path ${JSON.stringify(issue.path)} (${issue.code}) names no field of the request`,
      );
    }
  } else if (answer.status === 402) {
    verdict.expect(answer.json !== undefined, "a payment challenge whose body is not JSON");
  }
  const leaked = leakedSecret(answer.text + JSON.stringify([...answer.headers]), server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  expectNothingLogged(verdict, server);
  verdict.done();
}

/** The request families the properties send, built once the description is read. */
function families() {
  const valid = requestTo(validBody);
  const nearValid = requestTo((op, schema) =>
    nearValidValue(schema, validBody(op, schema), openapi).map((near) => near.value),
  );
  const hostileValues = requestTo((op, schema) =>
    fc
      .tuple(validBody(op, schema), fc.constantFrom(...fieldNames(schema, openapi)), hostileValue)
      .map(([body, field, value]) => {
        const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        Object.defineProperty(copy, field, { value, enumerable: true, writable: true, configurable: true });
        return copy;
      }),
  );
  const malformed = fc
    .record({
      op: fc.constantFrom(...operations.filter((op) => op.method === "POST")),
      type: contentTypes,
      body: fc.oneof(
        malformedBodies,
        fc.integer({ min: MAX_BODY_BYTES - 4096, max: MAX_BODY_BYTES + 4096 }).map((n) => longStringBody(n)),
        fc
          .integer({ min: MAX_BODY_BYTES - 4096, max: MAX_BODY_BYTES - 64 })
          .map((n) => longStringBody(n, "letter")),
      ),
      extra: oddHeaders,
      ip: clientIp,
    })
    .chain(({ op, type, body, extra, ip }) =>
      pathFor(op, false).map((path) =>
        printable({
          method: op.method,
          path,
          headers: [
            ...(type === undefined ? [] : ([["content-type", type]] as [string, string][])),
            ...extra,
          ],
          body,
          ip,
        }),
      ),
    );
  const otherMethods = fc
    .record({
      op: fc.constantFrom(...operations),
      method: methods,
      preflight: fc.boolean(),
      body: fc.option(malformedBodies, { nil: undefined }),
      ip: clientIp,
    })
    .chain(({ op, method, preflight, body, ip }) =>
      pathFor(op, false).map((path) =>
        printable({
          method,
          path,
          headers:
            preflight && method === "OPTIONS"
              ? ([
                  ["origin", "https://agent.example"],
                  ["access-control-request-method", op.method],
                  ["access-control-request-headers", "content-type, payment-signature"],
                ] as [string, string][])
              : [],
          body,
          ip,
        }),
      ),
    );
  const randomPaths = fc.oneof(
    fc
      .record({
        method: methods,
        segments: fc.array(
          fc.oneof(
            fc.constantFrom(
              "api",
              "machine",
              "mpp",
              "orders",
              "uploads",
              "previews",
              "forms",
              "campaigns",
              "flower-letters",
              "schema",
            ),
            pathSegments,
          ),
          { maxLength: 5 },
        ),
        query: oddQuery,
        ip: clientIp,
      })
      .map(({ method, segments, query, ip }) =>
        printable({ method, path: `/api/machine/${segments.join("/")}${query}`, ip }),
      ),
    requestTo(validBody, true),
    fc
      .tuple(requestTo(validBody, true), oddQuery)
      .map(([c, query]) => printable({ ...c, path: `${c.path.split("?")[0]}${query}` })),
  );
  return { valid, nearValid, hostileValues, malformed, otherMethods, randomPaths };
}

describe("machine API (/openapi.json)", () => {
  it("the deployment has every optional part whose absence is a documented 503 (so no 503 is expected here)", () => {
    // payment_rail_unavailable: both rails; florist_unavailable: a florist; service_busy for address search: an
    // address provider; the hosted checkout's card payments (Projects API and UCP payment_rail_unavailable).
    expect(server.core.rails.x402).toBeDefined();
    expect(server.core.rails.mpp).toBeDefined();
    expect(server.core.rails.checkout).toBeDefined();
    expect(server.core.flowers).toBeDefined();
    expect(server.core.searchAddresses).toBeDefined();
  });

  it("valid requests to every operation: no 5xx, errors from the code table", async () => {
    await fuzz(families().valid, (call) => check(call));
    await expectHealthy(server);
  });

  it("near-valid bodies (one field of another type, out of range, too long, missing or extra): refused in the code table, issues name fields", async () => {
    await fuzz(families().nearValid, (call) => check(call));
    await expectHealthy(server);
  });

  it("hostile values inside valid bodies (deep nesting, huge numbers, unicode edges, prototype keys, NUL) never break it", async () => {
    await fuzz(families().hostileValues, (call) => check(call));
    await expectHealthy(server);
  });

  it("malformed JSON, wrong content types, long strings near the body limit and odd headers, on each operation's own method", async () => {
    await fuzz(families().malformed, (call) => check(call));
    await expectHealthy(server);
  });

  it("other methods on every listed path (HEAD, PUT, PATCH, DELETE, OPTIONS, CORS preflights, unknown ones)", async () => {
    await fuzz(families().otherMethods, (call) => check(call));
    await expectHealthy(server);
  });

  it("random paths, path parameters and query strings are answered from the code table", async () => {
    await fuzz(families().randomPaths, (call) => check(call));
    await expectHealthy(server);
  });

  it("every answer to every family of requests is as /openapi.json describes it (status, headers, content type, body)", async () => {
    const all = families();
    await fuzz(
      fc.oneof(all.valid, all.nearValid, all.hostileValues, all.malformed, all.otherMethods, all.randomPaths),
      (call) => check(call, true),
      {
        runs: RUNS * 2,
        // Answers once found outside the description: a plain OPTIONS (no CORS preflight), another method on
        // /health, an unlisted path with a malformed percent-encoding.
        examples: [
          printable({ method: "OPTIONS", path: "/api/machine/orders" }),
          printable({ method: "PROPFIND", path: "/health" }),
          printable({ method: "GET", path: "/api/machine/nowhere/%zz" }),
        ],
      },
    );
    await expectHealthy(server);
  });

  it("nothing generated made the server reach past this machine", () => {
    expect(refusedDials).toEqual([]);
  });
});
