import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makePdf } from "@mailpiece/conformance";
import type { Principal } from "@mailpiece/core";
import { STATUS_TABLE } from "@mailpiece/v1";
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
  sentJson,
  Verdict,
} from "./checks.ts";
import { refusedDials } from "./dial-guard.ts";
import { type Answer, type Call, type FuzzServer, startFuzzServer } from "./harness.ts";
import {
  contentTypes,
  hostileValue,
  malformedBodies,
  methods,
  oddHeaders,
  oddQuery,
  pathSegments,
} from "./hostile.ts";
import { ADDRESS_ALIASES, PROJECTS_MODELS, PROJECTS_ROUTES, type ProjectsRoute } from "./projects-models.ts";
import { fieldNames, type Hint, nearValidValue, validValue } from "./schema-arbitrary.ts";

/**
 * The Projects API (spec 3) at /api/v1: every route of apps/v1/src/routes/*.ts, with a valid test key and with
 * none or a wrong one, bodies from spec 3's field rules (valid, one field changed, hostile), random ids in paths,
 * odd queries, content types, headers and methods. Every answer: never 5xx (the 503 codes of the table, for card
 * payments or a store that does not answer, cannot occur: the deployment has the simulated card payments and a
 * memory store), `Cache-Control: no-store`, an error as a JSON body with a code of apps/v1/src/errors.ts STATUS_TABLE
 * at that code's status, each issue naming a field of the request, no secret repeated, and no resource for a
 * request without a valid key.
 *
 * Generated requests name the fuzzer's own resources through placeholders (`$DOC_LETTER`, `$QUOTE_LETTER`...),
 * made through the core just before the request is sent, so that valid requests reach quoting and ordering.
 */

let server: FuzzServer;
let pdf: Uint8Array;
let postcardPdf: Uint8Array;

/** The fuzzer's workspace: its key (rotated through the core before it meets its 120 requests a minute). */
const session = {
  key: "",
  principal: undefined as unknown as Principal,
  used: 0,
  documents: {} as Record<string, string>,
  orders: {} as Record<string, string>,
};

async function useKey(): Promise<string> {
  if (session.used >= 90) {
    const issued = await server.core.workspaces.rotateKey(session.principal, "test");
    server.secrets.add(issued.api_key);
    session.key = issued.api_key;
    session.principal = await server.core.workspaces.authenticate(issued.api_key);
    session.used = 0;
  }
  session.used++;
  return session.key;
}

/** A document of the fuzzer's workspace through the core: declared, and uploaded and completed as asked. */
async function document(bytes: Uint8Array, pages: number, upTo: "declared" | "uploaded" | "ready") {
  const projects = server.core.projects;
  const intent = await projects.createUploadIntent(session.principal, {
    content_type: "application/pdf",
    byte_size: bytes.byteLength,
  });
  const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
  if (upTo !== "declared") {
    await projects.uploadDocument({
      document_id: intent.document_id,
      token,
      content_type: "application/pdf",
      bytes,
    });
  }
  if (upTo === "ready")
    await projects.completeDocument(session.principal, intent.document_id, { page_count: pages });
  return { id: intent.document_id, token };
}

beforeAll(async () => {
  server = await startFuzzServer();
  pdf = await makePdf(1);
  postcardPdf = await makePdf(2, [450, 306]);
  const made = await server.workspace("Projects Fuzz");
  session.key = made.test_api_key;
  session.principal = await server.core.workspaces.authenticate(session.key);
  session.documents.letter = (await document(pdf, 1, "ready")).id;
  session.documents.postcard = (await document(postcardPdf, 2, "ready")).id;
  const address = {
    name: "Grace",
    line1: "350 Fifth Avenue",
    city: "New York",
    state: "NY",
    postal_code: "10118",
  };
  for (const kind of ["letter", "postcard"] as const) {
    const quote = await server.core.projects.createQuote(session.principal, kind, {
      document_id: session.documents[kind],
      ...(kind === "postcard" ? { postcard_size: "4x6" } : {}),
    });
    const order = await server.core.projects.createOrder(
      session.principal,
      kind,
      { quote_id: quote.quote_id, recipient: address, sender: { ...address, name: "Ada" } },
      `fuzz-${kind}`,
    );
    session.orders[kind] = order.id;
  }
  // A document of another workspace: never visible to the fuzzer's key.
  const other = await server.workspace("Someone Else");
  const otherPrincipal = await server.core.workspaces.authenticate(other.test_api_key);
  const foreign = await server.core.projects.createUploadIntent(otherPrincipal, {
    content_type: "application/pdf",
    byte_size: 10,
  });
  session.documents.foreign = foreign.document_id;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Replaces each placeholder of a request with a resource made for it now. */
async function resolvePlaceholders(call: Call): Promise<Call> {
  let text = `${call.path}\u0000${typeof call.body === "string" ? call.body : ""}`;
  if (!text.includes("$")) return call;
  const replace = async (name: string, make: () => Promise<string>) => {
    while (text.includes(name)) text = text.replace(name, await make());
  };
  if (text.includes("$DOC_PENDING") || text.includes("$UPLOAD_TOKEN")) {
    const pending = await document(pdf, 1, "declared");
    text = text.replaceAll("$DOC_PENDING", pending.id).replaceAll("$UPLOAD_TOKEN", pending.token);
  }
  await replace("$DOC_UPLOADED", async () => (await document(pdf, 1, "uploaded")).id);
  text = text
    .replaceAll("$DOC_LETTER", session.documents.letter!)
    .replaceAll("$DOC_POSTCARD", session.documents.postcard!)
    .replaceAll("$DOC_FOREIGN", session.documents.foreign!)
    .replaceAll("$ORDER_LETTER", session.orders.letter!)
    .replaceAll("$ORDER_POSTCARD", session.orders.postcard!);
  await replace("$QUOTE_LETTER", async () => {
    const quote = await server.core.projects.createQuote(session.principal, "letter", {
      document_id: session.documents.letter,
    });
    return quote.quote_id;
  });
  await replace("$QUOTE_POSTCARD", async () => {
    const quote = await server.core.projects.createQuote(session.principal, "postcard", {
      document_id: session.documents.postcard,
      postcard_size: "4x6",
    });
    return quote.quote_id;
  });
  const [path, body] = text.split("\u0000") as [string, string];
  return { ...call, path, ...(typeof call.body === "string" ? { body } : {}) };
}

/** Realistic values of spec 3's fields, including placeholders of the fuzzer's own resources. */
const hint: Hint = (name) => {
  switch (name) {
    case "document_id":
      return fc.constantFrom("$DOC_LETTER", "$DOC_POSTCARD", "$DOC_PENDING", "$DOC_UPLOADED", "$DOC_FOREIGN");
    case "quote_id":
      return fc.constantFrom("$QUOTE_LETTER", "$QUOTE_POSTCARD", "qt_00000000000000000000000000000000");
    case "recipient":
    case "sender":
      return fc
        .tuple(
          fc.constantFrom(
            { name: "Grace", line1: "350 Fifth Avenue", city: "New York", state: "NY", postal_code: "10118" },
            {
              name: "Ada",
              street1: "1600 Pennsylvania Ave NW",
              address_city: "Washington",
              province: "DC",
              zip: "20500",
            },
            {
              name: "Émile",
              addressLine1: "111 Wellington St",
              addressCity: "Ottawa",
              addressState: "ON",
              postalOrZip: "K1A 0A9",
              country: "CA",
            },
            { name: "Jan", line1: "Damrak 1", city: "Amsterdam", postal_code: "1012 LG", countryCode: "NL" },
          ),
          fc.option(
            fc.constantFrom({ company: "Acme" }, { line2: "Suite 3100" }, { name: "x".repeat(256) }),
            { nil: undefined },
          ),
        )
        .map(([a, extra]) => ({ ...a, ...extra }));
    case "page_count":
      return fc.constantFrom(1, 2);
    case "byte_size":
      return fc.constant(1024);
    default:
      return undefined;
  }
};

/** Every field name a Projects API issue may name: the models' fields, the address aliases, the query parameters. */
const knownFields = new Set<string>([
  ...Object.values(PROJECTS_MODELS).flatMap((model) => [...fieldNames(model)]),
  ...Object.keys(ADDRESS_ALIASES),
  ...Object.values(ADDRESS_ALIASES).flat(),
  ...PROJECTS_ROUTES.flatMap((route) => route.query ?? []),
]);

/**
 * What an issue of one route may also name: the uploaded bytes ("body") of an upload, the document being completed
 * ("document") of a completion. Both are the request's own parts.
 */
function routeFields(route: ProjectsRoute | undefined): Set<string> {
  if (route?.public) return new Set([...knownFields, "body"]);
  if (route?.path.endsWith("/complete")) return new Set([...knownFields, "document"]);
  return knownFields;
}

function pathParameter(name: string, hostile: boolean): fc.Arbitrary<string> {
  const plausible =
    name === "document_id"
      ? fc.oneof(
          fc.constantFrom("$DOC_LETTER", "$DOC_POSTCARD", "$DOC_PENDING", "$DOC_UPLOADED", "$DOC_FOREIGN"),
          fc.stringMatching(/^doc_[0-9a-f]{32}$/),
        )
      : fc.oneof(fc.constantFrom("$ORDER_LETTER", "$ORDER_POSTCARD"), fc.uuid());
  return hostile ? fc.oneof(plausible, pathSegments) : plausible;
}

function pathOf(route: ProjectsRoute, hostile: boolean): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return fc.tuple(...names.map((name) => pathParameter(name, hostile))).map((values) => {
    let path = route.path;
    names.forEach((name, index) => {
      path = path.replace(`{${name}}`, values[index]!);
    });
    return `/api/v1${path}`;
  });
}

function queryOf(route: ProjectsRoute): fc.Arbitrary<string> {
  if (route.public) return fc.constantFrom("?token=$UPLOAD_TOKEN", "?token=wrong", "", "?token=");
  if (!route.query) return fc.constant("");
  return fc.oneof(
    fc.constant(""),
    fc
      .record({
        limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
        cursor: fc.option(fc.constantFrom("", "x"), { nil: undefined }),
      })
      .map(({ limit, cursor }) => {
        const pairs = [
          ...(limit === undefined ? [] : [`limit=${limit}`]),
          ...(cursor === undefined ? [] : [`cursor=${cursor}`]),
        ];
        return pairs.length === 0 ? "" : `?${pairs.join("&")}`;
      }),
  );
}

/** A request to `route` with the fuzzer's key (marked `$KEY`), a body made by `body` from its model. */
function requestTo(
  route: ProjectsRoute,
  body: (model: object) => fc.Arbitrary<unknown>,
  hostilePath = false,
): fc.Arbitrary<Call> {
  const model = route.model ? PROJECTS_MODELS[route.model] : undefined;
  const payload: fc.Arbitrary<{ headers: [string, string][]; body?: string | Uint8Array }> = route.public
    ? fc
        .oneof(
          fc.constant(pdf),
          fc.constant(postcardPdf),
          fc.uint8Array({ maxLength: 64 }),
          fc.constant(new TextEncoder().encode("%PDF-1.7 but not really")),
        )
        .chain((bytes) =>
          fc.record({
            headers: fc.constantFrom<[string, string][]>(
              [["content-type", "application/pdf"]],
              [
                ["content-type", "application/pdf"],
                ["content-length", "99999999999"],
              ],
              [["content-type", "text/plain"]],
              [],
            ),
            body: fc.constant(bytes),
          }),
        )
    : model
      ? body(model).map((value) => ({
          headers: [["content-type", "application/json"]] as [string, string][],
          body: JSON.stringify(value),
        }))
      : fc.constant({ headers: [] });
  return fc
    .record({
      path: fc.tuple(pathOf(route, hostilePath), queryOf(route)).map(([p, q]) => `${p}${q}`),
      payload,
      idempotency: route.idempotent
        ? fc.oneof(
            { weight: 4, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: fc.constantFrom("same-key", "", " ", "k".repeat(256), "cl\u00e9") },
          )
        : fc.constant(undefined),
      contentLength: fc.boolean(),
    })
    .map(({ path, payload, idempotency, contentLength }) =>
      printable({
        method: route.method,
        path,
        headers: [
          ...(route.public ? [] : ([["authorization", "Bearer $KEY"]] as [string, string][])),
          ...payload.headers,
          ...(idempotency === undefined ? [] : ([["idempotency-key", idempotency]] as [string, string][])),
        ],
        ...(payload.body === undefined ? {} : { body: payload.body }),
        contentLength: contentLength || route.public === true,
      }),
    );
}

const byRoute = (body: (model: object) => fc.Arbitrary<unknown>, hostilePath = false) =>
  fc.oneof(
    ...PROJECTS_ROUTES.map((route) => requestTo(route, body, hostilePath).map((call) => ({ route, call }))),
  );

/** The addresses of realistic orders, under spec 3's names and under aliases. */
const addresses = hint("recipient", {})!;

/** Bodies that pass every rule of their route, so that valid requests reach quoting, ordering and billing. */
const realistic = new Map<object, fc.Arbitrary<unknown>>([
  [
    PROJECTS_MODELS.uploadIntent,
    fc.record({
      content_type: fc.constant("application/pdf"),
      byte_size: fc.integer({ min: 1, max: 5_000_000 }),
    }),
  ],
  [PROJECTS_MODELS.complete, fc.record({ page_count: fc.constantFrom(1, 2) })],
  [
    PROJECTS_MODELS.letterQuote,
    fc.record(
      {
        document_id: fc.constant("$DOC_LETTER"),
        color: fc.boolean(),
        double_sided: fc.boolean(),
        mail_class: fc.constantFrom("standard", "usps_first_class", "priority", "express"),
        destination_country_code: fc.constantFrom("US", "CA", "GB", "de"),
      },
      { requiredKeys: ["document_id"] },
    ),
  ],
  [
    PROJECTS_MODELS.postcardQuote,
    fc.record({ document_id: fc.constant("$DOC_POSTCARD"), postcard_size: fc.constant("4x6") }),
  ],
  [
    PROJECTS_MODELS.order,
    fc.record(
      {
        quote_id: fc.constantFrom("$QUOTE_LETTER", "$QUOTE_POSTCARD"),
        recipient: addresses,
        sender: addresses,
        metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 500 }), {
          maxKeys: 5,
        }),
      },
      { requiredKeys: ["quote_id", "recipient", "sender"] },
    ),
  ],
  [PROJECTS_MODELS.topUp, fc.record({ amount_cents: fc.integer({ min: 100, max: 100_000 }) })],
  [PROJECTS_MODELS.setup, fc.record({ mode: fc.constantFrom("test", "live") }, { requiredKeys: [] })],
  [
    PROJECTS_MODELS.autoRefill,
    fc.record(
      {
        enabled: fc.boolean(),
        threshold_cents: fc.integer({ min: 100, max: 100_000 }),
        refill_amount_cents: fc.integer({ min: 100, max: 100_000 }),
      },
      { requiredKeys: ["threshold_cents", "refill_amount_cents"] },
    ),
  ],
  [
    PROJECTS_MODELS.rotate,
    fc.record(
      {
        mode: fc.constant("test"),
        permissions: fc.subarray(["mailings.submit_test", "letters:read"], { minLength: 1 }),
      },
      { requiredKeys: ["mode"] },
    ),
  ],
]);

const valid = (model: object) => {
  const own = realistic.get(model);
  const fromSchema = validValue(model as never, { hint });
  return own ? fc.oneof(own, fromSchema) : fromSchema;
};

/** Sends a request (its placeholders made, `$KEY` the fuzzer's key) and checks its answer. */
async function check(
  { route, call }: { route?: ProjectsRoute; call: Call },
  authorized = true,
): Promise<Answer> {
  let sent = await resolvePlaceholders(call);
  if (sent.headers?.some(([, value]) => value.includes("$KEY"))) {
    const key = await useKey();
    sent = { ...sent, headers: sent.headers.map(([name, value]) => [name, value.replaceAll("$KEY", key)]) };
  }
  const answer = await server.send(sent);
  const verdict = new Verdict(sent, answer);
  verdict.expect(answer.status < 500, `answered ${answer.status}: the Projects API never answers 5xx here`);
  if (sent.path.startsWith("/api/v1")) {
    verdict.expect(
      answer.headers.get("cache-control") === "no-store",
      `Cache-Control is ${JSON.stringify(answer.headers.get("cache-control"))}, not no-store`,
    );
  }
  if (!authorized && route && !route.public) {
    verdict.expect(answer.status >= 400, `answered ${answer.status} to a request without a valid key`);
  }
  if (answer.status >= 400 && sent.method !== "HEAD") {
    const body = answer.json as { error?: unknown; retry_after_seconds?: unknown } | undefined;
    verdict.expect(body !== undefined, "an error answer whose body is not JSON");
    const code = body?.error;
    const inTable = typeof code === "string" && Object.hasOwn(STATUS_TABLE, code);
    verdict.expect(inTable, `error code ${JSON.stringify(code)} is not in the Projects API's STATUS_TABLE`);
    if (inTable) {
      const status = STATUS_TABLE[code as keyof typeof STATUS_TABLE].status;
      verdict.expect(
        status === answer.status,
        `error code ${String(code)} belongs to ${status}, not ${answer.status}`,
      );
    }
    if (answer.status === 401) {
      verdict.expect(
        answer.headers.get("www-authenticate") === 'Bearer realm="api"',
        'a 401 without WWW-Authenticate: Bearer realm="api"',
      );
    }
    if (answer.status === 429) {
      verdict.expect(answer.headers.has("retry-after"), "a 429 without Retry-After");
      verdict.expect(typeof body?.retry_after_seconds === "number", "a 429 without retry_after_seconds");
    }
    if (answer.status === 405) verdict.expect(answer.headers.has("allow"), "a 405 without Allow");
    const { ok, issues } = issuesOf(body);
    verdict.expect(ok, "issues is not a list of {path, code, message}");
    const request = sentJson(sent);
    const fields = routeFields(route);
    for (const issue of issues) {
      verdict.expect(
        pathNamesField(issue.path, request, fields),
        `issue path ${JSON.stringify(issue.path)} (${issue.code}) names no field of the request`,
      );
    }
  }
  // The calling key is never repeated; a rotation answers the new key, which is a secret from then on.
  const key = sent.headers?.find(([name]) => name === "authorization")?.[1].replace(/^Bearer /, "");
  const leaked = leakedSecret(answer.text + JSON.stringify([...answer.headers]), [
    ...server.secrets,
    ...(key && key.length >= 16 ? [key] : []),
  ]);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  expectNothingLogged(verdict, server);
  verdict.done();
  const issued = (answer.json as { api_key?: unknown } | undefined)?.api_key;
  if (typeof issued === "string") server.secrets.add(issued);
  return answer;
}

/** Wrong keys: none, empty, malformed, unknown, another scheme, two keys in one header. */
const wrongKeys: fc.Arbitrary<[string, string][]> = fc.oneof(
  fc.constant<[string, string][]>([]),
  fc
    .oneof(
      fc.constantFrom(
        "Bearer",
        "Bearer ",
        "bearer",
        "Basic c3ZjOnRlc3Q=",
        "Token $KEY",
        "Bearer $KEY $KEY",
        "$KEY",
        "Bearer\t$KEY",
      ),
      fc.stringMatching(/^svc_(test|live)_[A-Za-z0-9_-]{10,60}$/).map((k) => `Bearer ${k}`),
      fc.string({ maxLength: 80, unit: "grapheme-ascii" }).map((k) => `Bearer ${k}`),
      fc.constantFrom(
        "Bearer svc_test_",
        "Bearer svc_live_",
        `Bearer ${"a".repeat(5000)}`,
        "Bearer $KEYx",
        "Bearer x$KEY",
      ),
    )
    .map((value) => [["authorization", value]] as [string, string][]),
  fc.constant([
    ["authorization", "Bearer svc_test_wrong"],
    ["authorization", "Bearer $KEY"],
  ] as [string, string][]),
);

describe("Projects API (/api/v1)", () => {
  it("the fuzzed routes are every route of apps/v1/src/routes/*.ts", () => {
    const dir = join(import.meta.dirname, "../../apps/v1/src/routes");
    const found = new Set<string>();
    for (const file of readdirSync(dir).filter(
      (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
    )) {
      const source = readFileSync(join(dir, file), "utf8");
      for (const match of source.matchAll(/(?:publicRoute|route)\(\s*"([A-Z]+)",\s*[`"]([^`"]+)[`"]/g)) {
        const path = match[2]!.replace(/:([a-z_]+)/g, "{$1}");
        // A module that adds a route per kind writes its path as the template `/${kind}s...`.
        const perKind = "$" + "{kind}";
        for (const kind of path.includes(perKind) ? ["letter", "postcard"] : [""]) {
          found.add(`${match[1]} ${path.replace(perKind, kind)}`);
        }
      }
    }
    expect(found.size).toBeGreaterThan(10);
    expect([...found].sort()).toEqual(PROJECTS_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it("every route with a valid test key and valid bodies: no 5xx, errors from the table", async () => {
    await fuzz(byRoute(valid), (value) => check(value).then(() => undefined));
    await expectHealthy(server);
  });

  it("near-valid bodies (one field of another type, out of range, too long, missing or extra) are refused with the field's path", async () => {
    await fuzz(
      byRoute((model) => nearValidValue(model as never, valid(model)).map((near) => near.value)),
      (value) => check(value).then(() => undefined),
    );
    await expectHealthy(server);
  });

  it("hostile bodies: hostile values in valid bodies, malformed JSON, wrong content types, odd headers", async () => {
    const hostileBodies = byRoute((model) =>
      fc
        .tuple(
          valid(model),
          fc.constantFrom(...fieldNames(model as never), "__proto__", "constructor"),
          hostileValue,
        )
        .map(([body, field, value]) => {
          const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
          Object.defineProperty(copy, field, { value, enumerable: true, writable: true, configurable: true });
          return copy;
        }),
    );
    const raw = fc
      .tuple(
        fc.constantFrom(...PROJECTS_ROUTES.filter((route) => route.method !== "GET")),
        malformedBodies,
        contentTypes,
        oddHeaders,
        fc.boolean(),
      )
      .chain(([route, body, type, extra, contentLength]) =>
        requestTo(route, () => fc.constant({})).map((call) => ({
          route,
          call: printable({
            ...call,
            headers: [
              ...(call.headers ?? []).filter(([name]) => name !== "content-type"),
              ...(type === undefined ? [] : ([["content-type", type]] as [string, string][])),
              ...extra,
            ],
            body,
            contentLength,
          }),
        })),
      );
    await fuzz(fc.oneof(hostileBodies, raw), (value) => check(value).then(() => undefined));
    await expectHealthy(server);
  });

  it("without a key or with a wrong one: refused (401, 403 or 429), never the resource", async () => {
    const call = fc.tuple(byRoute(valid), wrongKeys, clientIp).map(([{ route, call }, keys, ip]) => ({
      route,
      call: printable({
        ...call,
        headers: [...(call.headers ?? []).filter(([name]) => name !== "authorization"), ...keys],
        ip,
      }),
    }));
    await fuzz(call, (value) => check(value, false).then(() => undefined));
    await expectHealthy(server);
  });

  it("random ids in paths, random paths under /api/v1, odd queries and methods", async () => {
    const random = fc
      .record({
        method: methods,
        segments: fc.array(
          fc.oneof(
            fc.constantFrom(
              "documents",
              "letters",
              "postcards",
              "credits",
              "api-keys",
              "quotes",
              "upload",
              "complete",
              "document.pdf",
              "ledger",
            ),
            pathSegments,
          ),
          { maxLength: 5 },
        ),
        query: oddQuery,
        auth: fc.boolean(),
      })
      .map(({ method, segments, query, auth }) => ({
        call: printable({
          method,
          path: `/api/v1/${segments.join("/")}${query}`,
          headers: auth ? ([["authorization", "Bearer $KEY"]] as [string, string][]) : [],
        }),
      }));
    const hostileIds = byRoute(valid, true);
    const oddQueries = fc
      .tuple(byRoute(valid), oddQuery, methods)
      .map(([{ route, call }, query, method]) => ({
        route,
        call: printable({ ...call, path: `${call.path.split("?")[0]}${query}`, method }),
      }));
    await fuzz(fc.oneof(random, hostileIds, oddQueries), (value) => check(value).then(() => undefined));
    await expectHealthy(server);
  });

  it("nothing generated made the server reach past this machine", () => {
    expect(refusedDials).toEqual([]);
  });
});
