import { inspect } from "node:util";
import { AddressError, type AddressProvider } from "@mailpiece/ports";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOQATE_FIND_PATH, LOQATE_RETRIEVE_PATH } from "./loqate-client.ts";
import { createLoqateAddressProvider, type LoqateAddressProviderOptions } from "./loqate-provider.ts";
import {
  closedPortUrl,
  REPLAY_KEY,
  type ReplayServer,
  recorded,
  startReplayServer,
} from "./replay-server.fixture.ts";

let server: ReplayServer;
let loqate: AddressProvider;

/** The adapter on the replay server, with a timeout no busy machine reaches unless a test asks for a short one. */
function provider(options: Partial<LoqateAddressProviderOptions> = {}): AddressProvider {
  return createLoqateAddressProvider({
    apiKey: REPLAY_KEY,
    baseUrl: server.url,
    timeoutMs: 30_000,
    ...options,
  });
}

beforeEach(async () => {
  server = await startReplayServer();
  loqate = provider();
});

afterEach(async () => {
  await server.close();
});

/** The AddressError an action fails with; fails the test when it succeeds or throws something else. */
async function refusal(action: Promise<unknown>): Promise<AddressError> {
  try {
    await action;
  } catch (error) {
    expect(AddressError.isInstance(error), `an AddressError, got ${String(error)}`).toBe(true);
    return error as AddressError;
  }
  throw new Error("expected an AddressError, but it succeeded");
}

/** Every Find answer replaced by `body`. */
function findAnswers(body: unknown): void {
  server.override((request) =>
    request.service === "Find" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : undefined,
  );
}

const item = (Id: string, Type: string, Text: string, Description: string) => ({
  Id,
  Type,
  Text,
  Highlight: "",
  Description,
});

describe("search: what it asks Loqate", () => {
  it("sends Key, the trimmed Text, Countries, Limit and IsMiddleware as query parameters of a GET to Find", async () => {
    await loqate.search({ query: "  11 Madison Ave\t", country_code: "US" });
    await loqate.search({ query: "11 Madison Ave", country_code: "US", limit: 2 });
    expect(server.requests.map((r) => [r.method, r.path, r.params])).toEqual([
      [
        "GET",
        LOQATE_FIND_PATH,
        { Key: REPLAY_KEY, Text: "11 Madison Ave", Countries: "US", Limit: "10", IsMiddleware: "true" },
      ],
      [
        "GET",
        LOQATE_FIND_PATH,
        { Key: REPLAY_KEY, Text: "11 Madison Ave", Countries: "US", Limit: "2", IsMiddleware: "true" },
      ],
    ]);
  });

  it("sends the key in no header", async () => {
    await loqate.search({ query: "11 Madison Ave", country_code: "US" });
    await loqate.retrieve("US|US|US|A|V119100001");
    for (const request of server.requests) {
      expect(JSON.stringify(request.headers)).not.toContain(REPLAY_KEY);
    }
  });

  it("refuses malformed arguments with invalid_query naming the field, before any request", async () => {
    const cases: Array<[Parameters<AddressProvider["search"]>[0], string]> = [
      [{ query: "ab", country_code: "US" }, "query"],
      [{ query: "  ab \n", country_code: "US" }, "query"],
      [{ query: "x".repeat(201), country_code: "US" }, "query"],
      [{ query: "11 Madison Ave", country_code: "us" }, "country_code"],
      [{ query: "11 Madison Ave", country_code: "USA" }, "country_code"],
      [{ query: "11 Madison Ave", country_code: "US", limit: 0 }, "limit"],
      [{ query: "11 Madison Ave", country_code: "US", limit: 51 }, "limit"],
      [{ query: "11 Madison Ave", country_code: "US", limit: 2.5 }, "limit"],
    ];
    for (const [input, field] of cases) {
      const error = await refusal(loqate.search(input));
      expect([error.code, error.field]).toEqual(["invalid_query", field]);
    }
    expect(server.requests).toEqual([]);
  });
});

describe("search: how Loqate's answer maps", () => {
  it("prefixes Loqate's Id with the country; Address stays Address, BuildingNumber is a Container", async () => {
    expect(await loqate.search({ query: "11 madison ave", country_code: "US" })).toEqual([
      {
        id: "US|US|US|A|V119112259|1B",
        text: "11 Madison Ave Bsmt 1B, New York, NY 10010",
        type: "Address",
        description: "New York, NY 10010",
      },
      {
        id: "US|US|US|B|V119112259",
        text: "11 Madison Ave, New York, NY 10010",
        type: "Container",
        description: "3 Addresses",
      },
      {
        id: "US|US|US|A|U542207731",
        text: "11 Madison Ave, Morristown, NJ 07960",
        type: "Address",
        description: "Morristown, NJ 07960",
      },
    ]);
  });

  it("maps every Type but Address to Container", async () => {
    findAnswers({
      Items: [
        item("X|1", "Street", "Main St", "Springfield, IL - 40 Addresses"),
        item("X|2", "BuildingNumber", "12 Main St", "Springfield, IL 62701 - 4 Addresses"),
        item("X|3", "Postcode", "62701", "Springfield, IL - 1,200+ Addresses"),
        item("X|4", "Locality", "Springfield", "IL"),
        item("X|5", "Container", "Main Street Plaza", ""),
        item("X|6", "Residential", "Some place", "Elsewhere"),
        item("X|7", "Address", "12 Main St Apt 1", "Springfield, IL 62701"),
      ],
    });
    const answer = await loqate.search({ query: "Main St", country_code: "US", limit: 50 });
    expect(answer.map((s) => [s.id, s.type, s.text, s.description])).toEqual([
      ["US|X|1", "Container", "Main St, Springfield, IL", "40 Addresses"],
      ["US|X|2", "Container", "12 Main St, Springfield, IL 62701", "4 Addresses"],
      ["US|X|3", "Container", "62701, Springfield, IL", "1,200+ Addresses"],
      ["US|X|4", "Container", "Springfield", "IL"],
      ["US|X|5", "Container", "Main Street Plaza", "Container"],
      ["US|X|6", "Container", "Some place", "Elsewhere"],
      ["US|X|7", "Address", "12 Main St Apt 1, Springfield, IL 62701", "Springfield, IL 62701"],
    ]);
  });

  it("drops items without an Id or Text and repeats of an id, and answers at most limit", async () => {
    findAnswers({
      Items: [
        item("", "Address", "No id", "Nowhere"),
        item("A|1", "Address", "", "No text"),
        { Id: "A|2", Type: "Address", Text: 12, Description: "Text not a string" },
        "not an item",
        item("A|3", "Address", "3 Elm St", "Springfield, IL 62701"),
        item("A|3", "Address", "3 Elm St again", "Springfield, IL 62701"),
        item("A|4", "Address", "4 Elm St", ""),
        item("A|5", "Address", "5 Elm St", "Springfield, IL 62701"),
      ],
    });
    const answer = await loqate.search({ query: "Elm St", country_code: "US", limit: 2 });
    expect(answer).toEqual([
      {
        id: "US|A|3",
        text: "3 Elm St, Springfield, IL 62701",
        type: "Address",
        description: "Springfield, IL 62701",
      },
      { id: "US|A|4", text: "4 Elm St", type: "Address", description: "US" },
    ]);
  });

  it("answers [] for a query Loqate finds nothing for, and for a country it has nothing in", async () => {
    expect(await loqate.search({ query: "Qxzqv Jjwkpz", country_code: "US" })).toEqual([]);
    expect(await loqate.search({ query: "11 Madison Ave", country_code: "ZZ" })).toEqual([]);
    expect(server.requests.map((r) => r.params.Countries)).toEqual(["US", "ZZ"]);
  });

  it("answers [] when Find refuses the arguments with an error of its own (1001 and up) outside a container", async () => {
    findAnswers({ Items: [{ Error: "1001", Description: "Text Invalid", Cause: "", Resolution: "" }] });
    expect(await loqate.search({ query: "!!!", country_code: "US" })).toEqual([]);
  });
});

describe("search inside a container", () => {
  it("sends the container's Loqate Id, without our country prefix, as Container", async () => {
    const answer = await loqate.search({
      query: "11 Madison Ave",
      country_code: "US",
      container: "US|US|US|B|V119112259",
    });
    expect(server.requests[0]?.params).toMatchObject({
      Key: REPLAY_KEY,
      Text: "11 Madison Ave",
      Countries: "US",
      Container: "US|US|B|V119112259",
      Limit: "10",
    });
    expect(answer.map((s) => [s.id, s.type])).toEqual([
      ["US|US|US|A|V119112259|1B", "Address"],
      ["US|US|US|A|V119112259|F2", "Address"],
      ["US|US|US|A|V119112259|F3", "Address"],
    ]);
  });

  it("walks a Postcode container down to its addresses (GB)", async () => {
    const [postcode] = await loqate.search({ query: "TF5 0NE", country_code: "GB" });
    expect(postcode).toEqual({
      id: "GB|GB|RM|ENG|0NE-TF5",
      text: "TF5 0NE, Span Meadow, Telford",
      type: "Container",
      description: "3 Addresses",
    });
    const inside = await loqate.search({ query: "TF5 0NE", country_code: "GB", container: postcode!.id });
    expect(server.requests[1]?.params.Container).toBe("GB|RM|ENG|0NE-TF5");
    expect(inside.map((s) => s.text)).toEqual([
      "29 Span Meadow, Telford, TF5 0NE",
      "30 Span Meadow, Telford, TF5 0NE",
      "Flat 2 Meadow House, 31 Span Meadow, Telford, TF5 0NE",
    ]);
  });

  it("refuses a container that is not one of our ids of this country with unknown_container, asking nothing", async () => {
    const containers = [
      "",
      "|",
      "US|",
      "no-such-container",
      "GB|US|B|V119112259",
      "us|x",
      `US|${"x".repeat(600)}`,
    ];
    for (const container of containers) {
      const error = await refusal(loqate.search({ query: "11 Madison Ave", country_code: "US", container }));
      expect([error.code, error.field]).toEqual(["unknown_container", "container"]);
    }
    expect(server.requests).toEqual([]);
  });

  it("refuses a container Loqate answers no items for with unknown_container", async () => {
    const error = await refusal(
      loqate.search({ query: "11 Madison Ave", country_code: "US", container: "US|US|US|B|NO_SUCH" }),
    );
    expect([error.code, error.field]).toEqual(["unknown_container", "container"]);
    expect(server.requests[0]?.params.Container).toBe("US|US|B|NO_SUCH");
  });

  it("refuses a container that answers only itself, or an error of Find's own, with unknown_container", async () => {
    findAnswers({ Items: [item("US|US|B|V119112259", "BuildingNumber", "11 Madison Ave", "3 Addresses")] });
    const itself = await refusal(
      loqate.search({ query: "11 Madison Ave", country_code: "US", container: "US|US|US|B|V119112259" }),
    );
    expect(itself.code).toBe("unknown_container");

    findAnswers({ Items: [{ Error: "1002", Description: "Container Invalid", Cause: "", Resolution: "" }] });
    const invalid = await refusal(
      loqate.search({ query: "11 Madison Ave", country_code: "US", container: "US|US|US|B|V119112259" }),
    );
    expect([invalid.code, invalid.field]).toEqual(["unknown_container", "container"]);
  });

  it("throws provider_unavailable, not unknown_container, for an account error inside a container", async () => {
    findAnswers(recorded("errors/account-out-of-credit.json"));
    const error = await refusal(
      loqate.search({ query: "11 Madison Ave", country_code: "US", container: "US|US|US|B|V119112259" }),
    );
    expect(error.code).toBe("provider_unavailable");
  });
});

describe("retrieve", () => {
  it("sends Key and Loqate's Id to Retrieve and maps a US address, answering the id it was asked", async () => {
    expect(await loqate.retrieve("US|US|US|A|V119112259|1B")).toEqual({
      id: "US|US|US|A|V119112259|1B",
      line1: "11 Madison Ave Bsmt 1B",
      city: "New York",
      state: "NY",
      zip: "10010-3629",
      countryCode: "US",
      text: "11 Madison Ave Bsmt 1B, New York, NY 10010-3629",
    });
    expect(server.requests.map((r) => [r.method, r.path, r.params])).toEqual([
      ["GET", LOQATE_RETRIEVE_PATH, { Key: REPLAY_KEY, Id: "US|US|A|V119112259|1B" }],
    ]);
  });

  it("maps a GB address with two lines; the state falls back to Province when ProvinceCode is empty", async () => {
    expect(await loqate.retrieve("GB|GB|RM|B|24522150")).toEqual({
      id: "GB|GB|RM|B|24522150",
      line1: "Flat 2 Meadow House",
      line2: "31 Span Meadow",
      city: "Telford",
      state: "Shropshire",
      zip: "TF5 0NE",
      countryCode: "GB",
      text: "Flat 2 Meadow House, 31 Span Meadow, Telford, Shropshire TF5 0NE",
    });
  });

  it("takes the first of several items (a Canadian address in English and French)", async () => {
    expect(await loqate.retrieve("CA|CA|CP|B|3106452")).toEqual({
      id: "CA|CA|CP|B|3106452",
      line1: "290 Bremner Blvd",
      city: "Toronto",
      state: "ON",
      zip: "M5V 3L9",
      countryCode: "CA",
      text: "290 Bremner Blvd, Toronto, ON M5V 3L9",
    });
  });

  it("answers undefined without asking for a string that is not one of our ids", async () => {
    for (const id of [
      "",
      "not an id",
      "|",
      "US",
      "US|",
      "us|US|US|A|V119100001",
      " US|US|US|A|V119100001",
      "USA|x",
    ]) {
      expect(await loqate.retrieve(id)).toBeUndefined();
    }
    expect(await loqate.retrieve(`US|${"x".repeat(10_000)}`)).toBeUndefined();
    expect(await loqate.retrieve(42 as unknown as string)).toBeUndefined();
    expect(server.requests).toEqual([]);
  });

  it("answers undefined for a Container id and an unknown id (Loqate: 1001 Id Invalid)", async () => {
    expect(await loqate.retrieve("US|US|US|B|V119112259")).toBeUndefined();
    expect(await loqate.retrieve("US|US|US|A|V119100001x")).toBeUndefined();
    expect(server.requests.map((r) => r.params.Id)).toEqual(["US|US|B|V119112259", "US|US|A|V119100001x"]);
  });

  it("answers undefined for 1002 Not Available, no items, another country, or an address without a postal code", async () => {
    server.override(() => ({ body: recorded("errors/retrieve-not-available.json") }));
    expect(await loqate.retrieve("US|US|US|A|V119100001")).toBeUndefined();

    server.override(() => ({ body: '{"Items":[]}' }));
    expect(await loqate.retrieve("US|US|US|A|V119100001")).toBeUndefined();

    server.override(undefined);
    expect(await loqate.retrieve("US|US|US|A|V119100001")).toMatchObject({ line1: "1 Madison Ave" });
    expect(await loqate.retrieve("GB|US|US|A|V119100001")).toBeUndefined();
    expect(server.requests.at(-1)?.params.Id).toBe("US|US|A|V119100001");

    const address = JSON.parse(recorded("retrieve/us-1-madison-ave.json")) as {
      Items: Record<string, unknown>[];
    };
    server.override(() => ({ body: JSON.stringify({ Items: [{ ...address.Items[0], PostalCode: "" }] }) }));
    expect(await loqate.retrieve("US|US|US|A|V119100001")).toBeUndefined();
  });
});

describe("errors that mean Loqate cannot answer", () => {
  const generic = [
    ["unknown-error.json", -1],
    ["unknown-key.json", 2],
    ["account-out-of-credit.json", 3],
    ["key-daily-limit-exceeded.json", 8],
    ["surge-protector-triggered.json", 10],
    ["key-expired.json", 16],
  ] as const;

  for (const [file, code] of generic) {
    it(`Loqate error ${code} (${file}) throws provider_unavailable from search and retrieve`, async () => {
      server.override(() => ({ body: recorded(`errors/${file}`) }));
      for (const action of [
        loqate.search({ query: "11 Madison Ave", country_code: "US" }),
        loqate.retrieve("US|US|US|A|V119100001"),
      ]) {
        const error = await refusal(action);
        expect(error.code).toBe("provider_unavailable");
        expect(error.message).toContain(`error ${code}`);
      }
    });
  }

  it("a wrong key is Loqate's Unknown key: provider_unavailable", async () => {
    const wrong = provider({ apiKey: "AA11-AA11-AA11-AA11" });
    const error = await refusal(wrong.search({ query: "11 Madison Ave", country_code: "US" }));
    expect(error.code).toBe("provider_unavailable");
    expect(error.message).toContain("error 2 (unknown key)");
  });

  it("an error number sent as a number, or as no number at all, is provider_unavailable too", async () => {
    for (const code of [2, "abc", null]) {
      findAnswers({ Items: [{ Error: code, Description: "x", Cause: "x", Resolution: "x" }] });
      expect((await refusal(loqate.search({ query: "11 Madison Ave", country_code: "US" }))).code).toBe(
        "provider_unavailable",
      );
    }
  });

  it("an HTTP status other than 2xx, a body that is not JSON, or JSON without an Items list", async () => {
    const replies = [
      { status: 500, body: '{"Items":[]}' },
      { status: 503, body: "Service Unavailable" },
      { status: 404, body: "" },
      { status: 200, body: "<html>maintenance</html>" },
      { status: 200, body: "" },
      { status: 200, body: '{"Items":' },
      { status: 200, body: "null" },
      { status: 200, body: '{"items":[]}' },
      { status: 200, body: '{"Items":{}}' },
    ];
    for (const reply of replies) {
      server.override(() => reply);
      for (const action of [
        loqate.search({ query: "11 Madison Ave", country_code: "US" }),
        loqate.retrieve("US|US|US|A|V119100001"),
      ]) {
        expect((await refusal(action)).code, JSON.stringify(reply)).toBe("provider_unavailable");
      }
    }
  });

  it("a server that never answers: provider_unavailable once timeoutMs has passed", async () => {
    server.override(() => ({ hang: true }));
    const impatient = provider({ timeoutMs: 200 });
    for (const action of [
      impatient.search({ query: "11 Madison Ave", country_code: "US" }),
      impatient.retrieve("US|US|US|A|V119100001"),
    ]) {
      const error = await refusal(action);
      expect(error.code).toBe("provider_unavailable");
      expect(error.message).toContain("no answer within 200 ms");
    }
  }, 15_000);

  it("a body that stops halfway: provider_unavailable once timeoutMs has passed", async () => {
    server.override(() => ({ stall: '{"Items":[{"Id":"US|A|1","Type":"Address",' }));
    const impatient = provider({ timeoutMs: 200 });
    const error = await refusal(impatient.search({ query: "11 Madison Ave", country_code: "US" }));
    expect([error.code, error.message]).toEqual([
      "provider_unavailable",
      "Loqate Find cannot answer: no answer within 200 ms.",
    ]);
  }, 15_000);

  it("an answer over maxResponseBytes: refused by its Content-Length, or read and dropped at the limit", async () => {
    const body = recorded("find/us-11-madison-ave.json");
    const bytes = Buffer.byteLength(body);
    server.override(() => ({ body }));
    expect(
      await provider({ maxResponseBytes: bytes }).search({ query: "abc", country_code: "US" }),
    ).toHaveLength(3);
    const small = provider({ maxResponseBytes: bytes - 1 });
    const declared = await refusal(small.search({ query: "abc", country_code: "US" }));
    expect([declared.code, declared.message]).toEqual([
      "provider_unavailable",
      `Loqate Find cannot answer: the answer is over ${bytes - 1} bytes.`,
    ]);

    server.override(() => ({ endless: true }));
    const streamed = await refusal(
      provider({ maxResponseBytes: 100_000, timeoutMs: 60_000 }).search({ query: "abc", country_code: "US" }),
    );
    expect([streamed.code, streamed.message]).toEqual([
      "provider_unavailable",
      "Loqate Find cannot answer: the answer is over 100000 bytes.",
    ]);
  }, 15_000);

  it("a redirect is not followed, so the key goes nowhere else", async () => {
    const elsewhere = await startReplayServer();
    try {
      server.override(() => ({
        status: 302,
        headers: { location: `${elsewhere.url}${LOQATE_FIND_PATH}?Key=${REPLAY_KEY}` },
        body: "",
      }));
      const error = await refusal(loqate.search({ query: "11 Madison Ave", country_code: "US" }));
      expect(error.code).toBe("provider_unavailable");
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it("a service that cannot be reached: provider_unavailable", async () => {
    const closed = createLoqateAddressProvider({ apiKey: REPLAY_KEY, baseUrl: await closedPortUrl() });
    const error = await refusal(closed.search({ query: "11 Madison Ave", country_code: "US" }));
    expect([error.code, error.message]).toEqual([
      "provider_unavailable",
      "Loqate Find cannot answer: the service cannot be reached.",
    ]);
  });
});

describe("the API key never leaks", () => {
  const KEY = "LK99-SECR-ET00-KEY7";

  /** Everything an error could show: message, stack, cause chain, issues, its inspection and its JSON. */
  function everythingShown(error: unknown): string {
    const parts: string[] = [];
    let at: unknown = error;
    for (let depth = 0; depth < 10 && at !== undefined && at !== null; depth++) {
      parts.push(String(at), inspect(at, { depth: 10, showHidden: true }), JSON.stringify(at) ?? "");
      if (at instanceof Error) parts.push(at.message, at.stack ?? "");
      at = at instanceof Error ? at.cause : undefined;
    }
    return parts.join("\n");
  }

  it("appears in no error, cause, issue or console output, whatever goes wrong", async () => {
    const consoleCalls = (["log", "info", "warn", "error", "debug", "trace"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => undefined),
    );
    try {
      const unknownKey = recorded("errors/unknown-key.json");
      const scenarios: Array<[string, () => void, Partial<LoqateAddressProviderOptions>]> = [
        ["unknown key", () => server.override(() => ({ body: unknownKey })), {}],
        [
          "an error item quoting the key",
          () =>
            server.override(() => ({
              body: JSON.stringify({
                Items: [{ Error: "2", Description: `Unknown key ${KEY}`, Cause: KEY, Resolution: KEY }],
              }),
            })),
          {},
        ],
        ["HTTP 500 quoting the key", () => server.override(() => ({ status: 500, body: KEY })), {}],
        ["a body that is not JSON", () => server.override(() => ({ body: `<p>${KEY}</p>` })), {}],
        [
          "an answer too large",
          () => server.override(() => ({ body: `"${KEY}"`.repeat(100) })),
          { maxResponseBytes: 50 },
        ],
        ["no answer", () => server.override(() => ({ hang: true })), { timeoutMs: 200 }],
        [
          "a redirect",
          () =>
            server.override(() => ({
              status: 301,
              headers: { location: `https://example.invalid/?Key=${KEY}` },
              body: "",
            })),
          {},
        ],
      ];
      for (const [what, arrange, options] of scenarios) {
        arrange();
        const leaky = provider({ apiKey: KEY, ...options });
        for (const action of [
          leaky.search({ query: "11 Madison Ave", country_code: "US" }),
          leaky.search({ query: "11 Madison Ave", country_code: "US", container: "US|US|US|B|V119112259" }),
          leaky.retrieve("US|US|US|A|V119100001"),
        ]) {
          const error = await refusal(action);
          expect(error.code, what).toBe("provider_unavailable");
          expect(everythingShown(error), what).not.toContain(KEY);
        }
      }
      const unreachable = createLoqateAddressProvider({ apiKey: KEY, baseUrl: await closedPortUrl() });
      expect(everythingShown(await refusal(unreachable.retrieve("US|US|US|A|V119100001")))).not.toContain(
        KEY,
      );
      for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of consoleCalls) spy.mockRestore();
    }
  }, 20_000);

  it("appears in no message about a bad configuration", () => {
    const bad: Array<Partial<LoqateAddressProviderOptions>> = [
      { baseUrl: `http://example.com/?Key=${KEY}` },
      { baseUrl: `https://${KEY}@example.com` },
      { baseUrl: `not a url ${KEY}` },
      { timeoutMs: -1 },
    ];
    for (const options of bad) {
      expect(() => createLoqateAddressProvider({ apiKey: KEY, ...options })).toThrow(TypeError);
      try {
        createLoqateAddressProvider({ apiKey: KEY, ...options });
      } catch (error) {
        expect(everythingShown(error)).not.toContain(KEY);
      }
    }
  });
});

describe("configuration", () => {
  it("is named loqate", () => {
    expect(loqate.name).toBe("loqate");
  });

  it("calls https://api.addressy.com through the given fetch by default", async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response('{"Items":[]}', { headers: { "content-type": "application/json" } });
    };
    const live = createLoqateAddressProvider({ apiKey: "AA11-AA11-AA11-AA11", fetch });
    expect(await live.search({ query: "350 Fifth Avenue", country_code: "US" })).toEqual([]);
    expect(calls).toEqual([
      "https://api.addressy.com/Capture/Interactive/Find/v1.10/json3.ws?Key=AA11-AA11-AA11-AA11&Text=350+Fifth+Avenue&Countries=US&Limit=10&IsMiddleware=true",
    ]);
  });

  it("keeps a path of the base URL, without its trailing slash", async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response('{"Items":[]}');
    };
    await createLoqateAddressProvider({
      apiKey: "k",
      baseUrl: "https://proxy.example/loqate/",
      fetch,
    }).retrieve("US|x");
    expect(calls).toEqual([`https://proxy.example/loqate${LOQATE_RETRIEVE_PATH}?Key=k&Id=x`]);
  });

  it("accepts https anywhere and http only on 127.0.0.1 or localhost", () => {
    for (const baseUrl of [
      "https://api.addressy.com",
      "http://127.0.0.1:8080",
      "http://localhost:1",
      "http://[::1]:2",
    ]) {
      expect(() => createLoqateAddressProvider({ apiKey: "k", baseUrl })).not.toThrow();
    }
    for (const baseUrl of [
      "http://api.addressy.com",
      "http://127.0.0.2",
      "ftp://api.addressy.com",
      "api.addressy.com",
      "https://api.addressy.com/?x=1",
      "https://api.addressy.com/#x",
      "https://user:pass@api.addressy.com",
    ]) {
      expect(() => createLoqateAddressProvider({ apiKey: "k", baseUrl }), baseUrl).toThrow(TypeError);
    }
  });

  it("needs a key, and sensible limits", () => {
    expect(() => createLoqateAddressProvider({ apiKey: "" })).toThrow(TypeError);
    expect(() => createLoqateAddressProvider({ apiKey: "   " })).toThrow(TypeError);
    expect(() => createLoqateAddressProvider({} as LoqateAddressProviderOptions)).toThrow(TypeError);
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => createLoqateAddressProvider({ apiKey: "k", timeoutMs }), String(timeoutMs)).toThrow(
        TypeError,
      );
    }
    for (const maxResponseBytes of [0, -1, 0.5, Number.POSITIVE_INFINITY]) {
      expect(() => createLoqateAddressProvider({ apiKey: "k", maxResponseBytes })).toThrow(TypeError);
    }
  });
});
