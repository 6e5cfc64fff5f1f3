import fc from "fast-check";

/** Strings that break naive handling: control and format characters, lone surrogates, odd normalisation. */
export const EDGE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "\ud83d",
  "\u202eevil",
  "\u200b\u200d\u2060",
  "\ufeff",
  "\u2028\u2029",
  "e\u0301\u0301\u0301",
  "👩‍👩‍👧‍👦",
  "𝕳𝖊𝖑𝖑𝖔",
  "ﷺ",
  "\r\n\r\nX-Injected: 1",
  "<script>alert(1)</script>",
  "'; DROP TABLE orders; --",
  "$" + "{7*7}{{7*7}}",
  "../../../../etc/passwd",
  "%00%2e%2e%2f",
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e309",
  "__proto__",
  "constructor",
  "İstanbul ß ﬁ",
];

/** Numbers at the edges of JSON and of JavaScript's numbers (as they parse from JSON text). */
export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  0.1,
  1e-320,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e21,
  1.7976931348623157e308,
  -1.7976931348623157e308,
];

/**
 * Hostile JSON values: edge strings and numbers, objects with prototype keys (as own data), deep nesting, many
 * keys, long arrays. All stay well within the machine API's body limit once serialised.
 */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...EDGE_STRINGS),
  fc.constantFrom(...EDGE_NUMBERS),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom<unknown>(
    null,
    true,
    [],
    {},
    [null],
    [[[]]],
    JSON.parse('{"__proto__": {"polluted": true}}'),
    JSON.parse('{"constructor": {"prototype": {"polluted": true}}}'),
    JSON.parse('{"__proto__": null, "toString": 1, "valueOf": "x", "hasOwnProperty": []}'),
  ),
  fc
    .oneof(fc.integer({ min: 10, max: 3500 }), fc.constantFrom(64, 1024, 3500))
    .map((depth) => nested(depth, "array")),
  fc
    .oneof(fc.integer({ min: 10, max: 3500 }), fc.constantFrom(64, 1024, 3500))
    .map((depth) => nested(depth, "object")),
  fc
    .integer({ min: 100, max: 3000 })
    .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  fc.integer({ min: 100, max: 5000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
);

/** A value nested `depth` levels deep, as arrays or as objects. */
export function nested(depth: number, kind: "array" | "object"): unknown {
  let value: unknown = "core";
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
  return value;
}

/** JSON text of a value nested `depth` levels deep, built as text (deeper than a serialiser would go). */
export function nestedText(depth: number, kind: "array" | "object"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}1${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/**
 * Raw bodies that are not the JSON they claim to be (or are JSON only in a way a parser may not expect): broken,
 * truncated, with a BOM, with duplicate keys, numbers JSON.parse turns into Infinity, very deep nesting, NUL bytes.
 */
export const malformedBodies: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom<string | Uint8Array>(
    "",
    " ",
    "{",
    "}",
    "[",
    '{"a":}',
    "[1,]",
    "{'single': 'quotes'}",
    "NaN",
    "undefined",
    "null",
    "true",
    "0",
    '"just a string"',
    "[]",
    '{"a":1}garbage',
    '{"a":1}{"b":2}',
    '\ufeff{"request_id": "x"}',
    '{"request_id": "a", "request_id": "b"}',
    '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}',
    '{"n": 1e400, "m": -1e400, "big": 123456789012345678901234567890}',
    '{"s": "\\ud800\\udc00\\ud800", "t": "\\u0000"}',
    '{"a": "\u0000"}',
    new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    new Uint8Array([0, 0, 0, 0]),
  ),
  fc.integer({ min: 1000, max: 100_000 }).map((depth) => nestedText(depth, "array")),
  fc.integer({ min: 1000, max: 50_000 }).map((depth) => nestedText(depth, "object")),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
);

/** Content types a JSON endpoint should refuse or read with care. */
export const contentTypes: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/json, text/plain",
  "application/merge-patch+json",
  "application/problem+json",
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=fuzz",
  "application/pdf",
  "application/octet-stream",
  "",
  "*/*",
  ";;;",
);

/** Methods beyond the ones a route answers; TRACE, TRACK and CONNECT cannot be sent by fetch at all. */
export const methods: fc.Arbitrary<string> = fc.constantFrom(
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "PROPFIND",
  "FUZZ",
  "M-SEARCH",
);

/** Headers that repeat or contradict: each pair is sent as given, so a repeated name arrives joined. */
export const oddHeaders: fc.Arbitrary<[string, string][]> = fc.subarray(
  [
    ["content-type", "text/plain"],
    ["content-type", "application/json"],
    ["accept", "text/html"],
    ["accept", "application/json, text/event-stream"],
    ["accept-encoding", "gzip, br"],
    ["content-encoding", "gzip"],
    ["transfer-encoding", "chunked"],
    ["x-forwarded-for", "203.0.113.9, 127.0.0.1"],
    ["x-forwarded-host", "evil.example"],
    ["x-forwarded-proto", "https"],
    ["origin", "https://evil.example"],
    ["origin", "null"],
    ["sec-fetch-site", "cross-site"],
    ["cookie", "mailpiece_admin=forged; mailpiece_admin=again"],
    ["if-none-match", "*"],
    ["range", "bytes=0-10"],
    ["expect", "100-continue"],
    ["x-http-method-override", "DELETE"],
    ["authorization", "Basic Zm9vOmJhcg=="],
    ["authorization", "Bearer "],
  ] as [string, string][],
  { maxLength: 4 },
);

/**
 * Path segments a router must survive: malformed and encoded dots and slashes, NUL, unicode, very long ones. Each
 * is sent as written (not encoded again).
 */
export const pathSegments: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "%",
    "%zz",
    "%E0%A4%A",
    "%C0%AE%C0%AE",
    "%2e%2e",
    "%2F",
    "%2f..%2f",
    "%00",
    "%0d%0aX-Injected:%201",
    "%F0%9F%92%A9",
    "%ED%A0%80",
    "%FF",
    "..;",
    ";jsessionid=1",
    "~",
    "*",
    ".json",
    ".html",
    ".pdf",
    "00000000-0000-0000-0000-000000000000",
    "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    "__proto__",
    "constructor",
    "undefined",
  ),
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40, unit: "grapheme-ascii" }).map(encodeURIComponent),
  fc.string({ minLength: 1, maxLength: 20, unit: "grapheme" }).map(encodeURIComponent),
  fc.integer({ min: 200, max: 8000 }).map((n) => "s".repeat(n)),
);

/** Query strings: repeated, empty, encoded badly, long. */
export const oddQuery: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "?",
    "?&&&",
    "?=",
    "?limit=",
    "?limit=0",
    "?limit=-1",
    "?limit=1e3",
    "?limit=99999999999999999999",
    "?limit=1&limit=2",
    "?cursor=%",
    "?cursor=%zz",
    "?__proto__[x]=1",
    "?constructor=1",
    "?q=%00",
  ),
  fc
    .array(
      fc.tuple(fc.constantFrom("limit", "cursor", "q", "mode", "token", "expires", "sig", "x"), pathSegments),
      {
        maxLength: 4,
      },
    )
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`)),
);

/** A JSON body whose one string field is made as long as `bytes` allows (within a body limit). */
export function longStringBody(bytes: number, field = "buyer_name"): string {
  return JSON.stringify({ [field]: "x".repeat(Math.max(0, bytes - field.length - 8)) });
}
