import fc from "fast-check";
import type { Call } from "./harness.ts";
import { EDGE_NUMBERS, EDGE_STRINGS, hostileValue, malformedBodies, nestedText } from "./hostile.ts";
import { EXTRA_KEYS } from "./schema-arbitrary.ts";

/** A tool as tools/list describes it. */
export interface Tool {
  name: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
}

/** Names of extra arguments: unknown ones and the keys that reach prototypes. */
export const EXTRA_KEYS_ARB: fc.Arbitrary<string> = fc.constantFrom(
  ...EXTRA_KEYS.filter((key) => key !== ""),
);

/** Arguments that are not an object at all. */
export const nonObjectArguments: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, [], "arguments", 42, true, [{}]),
  hostileValue.filter((value) => typeof value !== "object" || value === null || Array.isArray(value)),
);

/** Arguments that are an object of hostile values only. */
export const hostileArguments: fc.Arbitrary<unknown> = fc.dictionary(
  fc.oneof(EXTRA_KEYS_ARB, fc.string({ maxLength: 10 })),
  hostileValue,
  { maxKeys: 3 },
);

/** JSON-RPC ids: what the spec allows and what it does not. */
const ids: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 20 }),
  fc.constantFrom<unknown>(null, 0, -1, 1.5, 2 ** 60, "", {}, [], true, "x".repeat(5000)),
);

const KNOWN_METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "notifications/initialized",
  "notifications/cancelled",
];

/** Params that fit a method of MCP (what a client sends), or none for a method the server does not have. */
function fittingParams(method: string, tools: string[]): fc.Arbitrary<unknown> {
  switch (method) {
    case "tools/call":
      return fc.record({
        name: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...tools) },
          { weight: 1, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
        ),
        arguments: fc.oneof(fc.object({ maxDepth: 2 }), hostileArguments),
      });
    case "initialize":
      return fc.record({
        protocolVersion: fc.constantFrom("2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01", ""),
        capabilities: fc.constant({}),
        clientInfo: fc.record({ name: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 10 }) }),
      });
    case "notifications/cancelled":
      return fc.record({
        requestId: fc.oneof(fc.integer(), fc.string({ maxLength: 5 })),
        reason: fc.string({ maxLength: 20 }),
      });
    case "tools/list":
      return fc.option(fc.record({ cursor: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }), {
        nil: undefined,
      });
    default:
      return fc.option(fc.oneof(fc.constant({}), hostileValue), { nil: undefined });
  }
}

/** Params that do not fit the method: another type, a member of another type, a required member missing. */
function unfittingParams(method: string, tools: string[]): fc.Arbitrary<unknown> {
  switch (method) {
    case "tools/call":
      return fc.oneof(
        fc.record({ name: fc.constantFrom(...tools), arguments: nonObjectArguments }),
        fc.record({ arguments: fc.object({ maxDepth: 1 }) }),
        fc.record({ name: fc.constantFrom<unknown>(7, null, [], {}), arguments: fc.constant({}) }),
        fc.record({ name: fc.constantFrom(...tools), _meta: fc.constantFrom<unknown>("meta", 3, []) }),
        hostileValue.filter((value) => typeof value !== "object" || value === null || Array.isArray(value)),
      );
    case "initialize":
      return fc.oneof(
        fc.record({
          protocolVersion: fc.constantFrom<unknown>(2025, null, {}),
          capabilities: fc.constant({}),
          clientInfo: fc.constant({ name: "x", version: "1" }),
        }),
        fc.record({ protocolVersion: fc.constant("2025-06-18") }),
        fc.constantFrom<unknown>("params", 1, []),
      );
    default:
      return fc.constantFrom<unknown>("params", 1, [], true);
  }
}

/** A JSON-RPC request or notification of a known method (or an unknown one), with params that fit or not. */
function wellFormed(tools: string[], fitting: boolean): fc.Arbitrary<unknown> {
  const method = fitting
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...KNOWN_METHODS) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            fc.constantFrom(
              "resources/list",
              "prompts/get",
              "logging/setLevel",
              "",
              "tools/",
              "__proto__",
              "constructor",
              "rpc.discover",
            ),
            fc.string({ maxLength: 30 }),
          ),
        },
      )
    : fc.constantFrom("tools/call", "tools/call", "initialize", "tools/list", "ping");
  return method.chain((name) =>
    fc
      .record(
        {
          jsonrpc: fc.constant("2.0"),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 })),
          method: fc.constant(name),
          params: fitting ? fittingParams(name, tools) : unfittingParams(name, tools),
        },
        { requiredKeys: ["jsonrpc", "method", "params"] },
      )
      .map((m) => JSON.parse(JSON.stringify(m)) as unknown),
  );
}

/** A message whose envelope is broken: jsonrpc, id or method of the wrong kind, or a response sent to the server. */
function brokenEnvelope(tools: string[]): fc.Arbitrary<unknown> {
  return fc
    .record(
      {
        jsonrpc: fc.constantFrom<unknown>("2.0", "1.0", 2, null, ""),
        id: ids,
        method: fc.oneof(fc.constantFrom(...KNOWN_METHODS), fc.constantFrom<unknown>(null, 7, [], {})),
        params: fittingParams("tools/call", tools),
        result: fc.constant({}),
        error: fc.constant({ code: -1, message: "from the client" }),
      },
      { requiredKeys: ["jsonrpc"] },
    )
    .map((m) => JSON.parse(JSON.stringify(m)) as unknown);
}

/**
 * Raw bodies: one message, a batch, an empty batch, malformed text, very deep nesting. With `fitting` false: only
 * well-formed messages of known methods whose params do not fit.
 */
function body(tools: string[], fitting: boolean): fc.Arbitrary<string | Uint8Array> {
  if (!fitting) return wellFormed(tools, false).map((m) => JSON.stringify(m));
  const message = fc.oneof(
    { weight: 3, arbitrary: wellFormed(tools, true) },
    { weight: 1, arbitrary: brokenEnvelope(tools) },
  );
  return fc.oneof(
    { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.array(message, { maxLength: 4 }).map((batch) => JSON.stringify(batch)) },
    { weight: 2, arbitrary: malformedBodies },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1000, max: 20_000 })
        .map(
          (depth) =>
            `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tools[depth % tools.length])},"arguments":${nestedText(depth, "object")}}}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...EDGE_NUMBERS)
        .map((id) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`),
    },
  );
}

/**
 * Raw HTTP requests to an MCP endpoint: POST (mostly), GET, DELETE and others; with the client's session, another,
 * none or a broken one (never DELETE of the client's own session, which the properties after keep using); the
 * deployment's Host or another; no Origin, the deployment's or another site's; JSON or other content types and
 * Accept values.
 */
export function rawRpcCalls(
  path: string,
  host: string,
  sessionId: string,
  tools: string[],
  fitting = true,
): fc.Arbitrary<Call> {
  // Most requests are sent as a client would; some change one or two parts of the transport.
  const odd =
    <T>(aspect: string, usual: T, others: fc.Arbitrary<T>) =>
    (perturbed: string[]) =>
      perturbed.includes(aspect) ? others : fc.constant(usual);
  const aspects = {
    method: odd("method", "POST", fc.constantFrom("GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD")),
    session: odd<"own" | "none" | "other" | "broken">(
      "session",
      "own",
      fc.constantFrom("none", "other", "broken"),
    ),
    host: odd("host", host, fc.constantFrom("evil.example", "", host.toUpperCase(), `${host}.evil.example`)),
    origin: odd<string | undefined>(
      "origin",
      undefined,
      fc.constantFrom(`http://${host}`, "https://evil.example", "null", "http://[::1"),
    ),
    type: odd(
      "type",
      "application/json",
      fc.constantFrom("text/plain", "application/json; charset=utf-16", "", "multipart/form-data"),
    ),
    accept: odd(
      "accept",
      "application/json, text/event-stream",
      fc.constantFrom("application/json", "text/event-stream", "*/*", "text/html", ""),
    ),
    version: odd<string | undefined>(
      "version",
      undefined,
      fc.constantFrom("2025-06-18", "2025-03-26", "1999-01-01", "garbage"),
    ),
  };
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constant<string[]>([]) },
      { weight: 2, arbitrary: fc.subarray(Object.keys(aspects), { minLength: 1, maxLength: 2 }) },
    )
    .chain((perturbed) =>
      fc.record({
        method: aspects.method(perturbed),
        session: aspects.session(perturbed),
        host: aspects.host(perturbed),
        origin: aspects.origin(perturbed),
        type: aspects.type(perturbed),
        accept: aspects.accept(perturbed),
        version: aspects.version(perturbed),
        body: body(tools, fitting),
      }),
    )
    .map((drawn) =>
      fitting
        ? drawn
        : {
            ...drawn,
            method: "POST",
            session: "own" as const,
            host,
            origin: undefined,
            type: "application/json",
            accept: "application/json, text/event-stream",
          },
    )
    .map(({ method, session, host: hostHeader, origin, type, accept, version, body: payload }) => {
      const id =
        session === "own" && method !== "DELETE"
          ? sessionId
          : session === "other" || (session === "own" && method === "DELETE")
            ? "6f9619ff-8b86-4d11-b42d-00c04fc964ff"
            : session === "broken"
              ? "\u00ff; DROP"
              : undefined;
      const headers: [string, string][] = [
        ["host", hostHeader],
        ["content-type", type],
        ["accept", accept],
        ...(id === undefined ? [] : ([["mcp-session-id", id]] as [string, string][])),
        ...(origin === undefined ? [] : ([["origin", origin]] as [string, string][])),
        ...(version === undefined ? [] : ([["mcp-protocol-version", version]] as [string, string][])),
      ];
      return { method, path, headers, body: payload };
    });
}
