import { strict as assert } from "node:assert";
import {
  ADDRESS_SEARCH_LIMITS,
  AddressError,
  type AddressErrorCode,
  type AddressProvider,
  type AddressSearch,
  type AddressSuggestion,
  addressIdCountry,
  type StructuredAddress,
} from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { refusalAssertion } from "../refused-with.ts";
import { ADDRESS_PROVIDER_REQUIREMENTS } from "./address-provider-requirements.ts";

/** Every code of the port's AddressErrorCode. */
const ADDRESS_ERROR_CODES: readonly string[] = [
  "invalid_query",
  "unknown_container",
  "provider_unavailable",
] satisfies AddressErrorCode[];

/** A refusal is an AddressError of the port's codes that says why (and names the field, when asked). */
const refusedWith = refusalAssertion(AddressError, { codes: ADDRESS_ERROR_CODES, saysWhy: true });

/** The names of the AddressProvider contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const ADDRESS_PROVIDER_CONTRACT_NAMES = [
  "search refuses a query under 3 or over 200 characters and a malformed country_code with invalid_query naming the field",
  "a well-formed query that matches nothing answers an empty list",
  "search answers at most limit suggestions (default 10, at most 50), well-formed, with distinct ids",
  "every id starts with the upper-case country code and a vertical bar, and search answers only country_code",
  "a Container id passed back as container answers the suggestions inside it; an unknown one is refused with unknown_container",
  "retrieve answers the structured address of every Address id search answered, with the same id and country",
  "retrieve answers undefined, never throwing, for an unknown id, a Container id and a string that is no id",
  "results do not depend on letter case or on spaces around the query",
  "a provider that cannot answer throws provider_unavailable, never an empty list",
] as const;

export type AddressProviderContractName = (typeof ADDRESS_PROVIDER_CONTRACT_NAMES)[number];

/** A provider to test, and what releases it. */
export interface AddressProviderSubject {
  provider: AddressProvider;
  dispose?(): void | Promise<void>;
}

export interface AddressProviderContractOptions {
  /** Shown in reports, e.g. `embedded sample`. */
  name?: string;
  /** Makes the provider to test. Called once per test. */
  create(): Promise<AddressProviderSubject>;
  /** The country the queries are in, upper case. Default "US". */
  country?: string;
  /** A query whose answer holds at least one `Address`, e.g. "350 Fifth Avenue". */
  knownQuery: string;
  /** A query whose answer holds at least one `Container`, e.g. "Fifth Avenue New York". */
  containerQuery: string;
  /** A well-formed query that matches nothing. Default a string of improbable words. */
  nothingQuery?: string;
  /**
   * Makes the same provider unable to reach its service (a wrong host, a closed port). When absent, the
   * provider_unavailable test has nothing to try and answers not applicable: an embedded provider is always
   * reachable.
   */
  unreachable?(): Promise<AddressProvider>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly AddressProviderContractName[];
}

const DEFAULT_NOTHING = "Qxzqv Jjwkpz Vvqqxx";
/** A country code no provider serves: well-formed, reserved for private use by ISO 3166. */
const NO_COUNTRY = "ZZ";

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Asserts the shape of one answer: a list of at most `limit` well-formed suggestions with distinct ids. */
function checkAnswer(answer: AddressSuggestion[], limit: number, what: string): AddressSuggestion[] {
  assert.ok(Array.isArray(answer), `${what}: search answers a list`);
  assert.ok(answer.length <= limit, `${what}: ${answer.length} suggestions, more than the limit ${limit}`);
  const ids = new Set<string>();
  for (const [i, s] of answer.entries()) {
    const where = `${what}: suggestion ${i} ${show(s)}`;
    for (const key of ["id", "text", "description"] as const) {
      assert.ok(typeof s?.[key] === "string" && s[key].trim().length > 0, `${where} has a non-empty ${key}`);
    }
    assert.ok(s.type === "Address" || s.type === "Container", `${where}: type is Address or Container`);
    assert.ok(!ids.has(s.id), `${where}: id ${s.id} appears twice in one answer`);
    ids.add(s.id);
  }
  return answer;
}

/**
 * The AddressProvider contract (adapters/ports/src/address-provider.ts) as a suite: one named test per MUST
 * sentence. It learns the provider's data from `knownQuery` and `containerQuery` and walks down from there, so one
 * suite fits any provider with data in `country`.
 */
export function addressProviderContract(
  options: AddressProviderContractOptions,
): Suite<AddressProviderContractName> {
  const country = options.country ?? "US";
  const queries = [options.knownQuery, options.containerQuery];

  interface Ctx {
    provider: AddressProvider;
    search(query: string, more?: Partial<AddressSearch>): Promise<AddressSuggestion[]>;
    /** Every suggestion of both queries and, two levels down, of the containers among them. */
    explore(): Promise<AddressSuggestion[]>;
  }

  const run = (body: (ctx: Ctx) => ReturnType<TestBody>) => async (): ReturnType<TestBody> => {
    const { provider, dispose } = await options.create();
    try {
      const search = async (query: string, more: Partial<AddressSearch> = {}) => {
        const limit = more.limit ?? ADDRESS_SEARCH_LIMITS.default_limit;
        const answer = await provider.search({ query, country_code: country, ...more });
        return checkAnswer(
          answer,
          Math.min(limit, ADDRESS_SEARCH_LIMITS.max_limit),
          `search(${show(query)})`,
        );
      };
      const explore = async () => {
        const seen = new Map<string, AddressSuggestion>();
        let level: Array<{ query: string; suggestion: AddressSuggestion }> = [];
        for (const query of queries) {
          for (const s of await search(query)) level.push({ query, suggestion: s });
        }
        for (let depth = 0; depth < 3 && level.length > 0; depth++) {
          const next: typeof level = [];
          for (const { query, suggestion } of level) {
            if (seen.has(suggestion.id)) continue;
            seen.set(suggestion.id, suggestion);
            if (suggestion.type !== "Container" || depth === 2) continue;
            for (const child of await search(query, { container: suggestion.id })) {
              next.push({ query, suggestion: child });
            }
          }
          level = next;
        }
        return [...seen.values()];
      };
      return await body({ provider, search, explore });
    } finally {
      await dispose?.();
    }
  };

  const tests: Record<AddressProviderContractName, TestBody> = {
    "search refuses a query under 3 or over 200 characters and a malformed country_code with invalid_query naming the field":
      run(async ({ provider, search }) => {
        const short = ["", "   ", "a", "ab", "  ab  ", "\tx\n", "x".repeat(201), ` ${"y".repeat(250)} `];
        for (const query of short) {
          await refusedWith(
            () => provider.search({ query, country_code: country }),
            "invalid_query",
            `search(${show(query)})`,
            "query",
          );
        }
        for (const code of ["us", "USA", "U", "", "1A", " US", "U S", "uS"]) {
          await refusedWith(
            () => provider.search({ query: options.knownQuery, country_code: code }),
            "invalid_query",
            `search with country_code ${show(code)}`,
            "country_code",
          );
        }
        for (const query of ["abc", "  abc  ", "z".repeat(200), ` ${"z".repeat(200)} `]) {
          await search(query);
        }
      }),

    "a well-formed query that matches nothing answers an empty list": run(async ({ search }) => {
      const nothing = options.nothingQuery ?? DEFAULT_NOTHING;
      assert.deepEqual(await search(nothing), [], `search(${show(nothing)}) answers []`);
      assert.deepEqual(await search(nothing, { limit: 50 }), [], `search(${show(nothing)}, limit 50)`);
    }),

    "search answers at most limit suggestions (default 10, at most 50), well-formed, with distinct ids": run(
      async ({ provider, search }) => {
        const words = queries.flatMap((q) => q.split(/\s+/)).filter((w) => w.length >= 3);
        let widest = 0;
        for (const query of [...queries, ...words]) {
          for (const limit of [1, 2, 3, 10, 50])
            widest = Math.max(widest, (await search(query, { limit })).length);
          await search(query);
          for (const limit of [51, 1000]) {
            let answer: AddressSuggestion[] | undefined;
            try {
              answer = await provider.search({ query, country_code: country, limit });
            } catch (error) {
              await refusedWith(() => Promise.reject(error), "invalid_query", `limit ${limit}`, "limit");
            }
            if (answer)
              checkAnswer(answer, ADDRESS_SEARCH_LIMITS.max_limit, `search(${show(query)}, ${limit})`);
          }
        }
        for (const container of (await search(options.containerQuery)).filter(
          (s) => s.type === "Container",
        )) {
          for (const limit of [1, 2, 3, 10])
            await search(options.containerQuery, { container: container.id, limit });
        }
        assert.equal((await search(options.knownQuery, { limit: 1 })).length, 1, "knownQuery with limit 1");
        assert.ok(widest >= 1, "the queries find something");
      },
    ),

    "every id starts with the upper-case country code and a vertical bar, and search answers only country_code":
      run(async ({ provider, explore }) => {
        const all = await explore();
        assert.ok(all.length > 0, "knownQuery and containerQuery find something");
        for (const s of all) {
          assert.ok(s.id.startsWith(`${country}|`), `${s.id} starts with ${country}|`);
          assert.equal(addressIdCountry(s.id), country, `${s.id} names its country`);
        }
        for (const query of queries) {
          const elsewhere = await provider.search({ query, country_code: NO_COUNTRY });
          checkAnswer(
            elsewhere,
            ADDRESS_SEARCH_LIMITS.default_limit,
            `search(${show(query)}) in ${NO_COUNTRY}`,
          );
          for (const s of elsewhere) {
            assert.ok(s.id.startsWith(`${NO_COUNTRY}|`), `a search in ${NO_COUNTRY} answered ${s.id}`);
          }
        }
      }),

    "a Container id passed back as container answers the suggestions inside it; an unknown one is refused with unknown_container":
      run(async ({ provider, search }) => {
        const answer = await search(options.containerQuery);
        const containers = answer.filter((s) => s.type === "Container");
        assert.ok(containers.length > 0, `search(${show(options.containerQuery)}) answers a Container`);
        for (const container of containers.slice(0, 3)) {
          const inside = await search(options.containerQuery, { container: container.id, limit: 50 });
          assert.ok(inside.length > 0, `container ${container.id} answers at least one suggestion`);
          assert.ok(
            inside.every((s) => s.id !== container.id),
            `container ${container.id} does not answer itself`,
          );
        }
        const address = (await search(options.knownQuery)).find((s) => s.type === "Address");
        const unknown = [`${country}|no-such-container-0`, "no-such-container", "", `${country}|`, "|"];
        if (address) unknown.push(address.id);
        for (const id of unknown) {
          await refusedWith(
            () => provider.search({ query: options.containerQuery, country_code: country, container: id }),
            "unknown_container",
            `search in container ${show(id)}`,
            "container",
          );
        }
      }),

    "retrieve answers the structured address of every Address id search answered, with the same id and country":
      run(async ({ provider, search, explore }) => {
        const known = await search(options.knownQuery);
        assert.ok(
          known.some((s) => s.type === "Address"),
          `search(${show(options.knownQuery)}) answers an Address`,
        );
        const addresses = [...known, ...(await explore())].filter((s) => s.type === "Address");
        for (const s of addresses) {
          const found: StructuredAddress | undefined = await provider.retrieve(s.id);
          assert.ok(found, `retrieve(${s.id}) answers the address search suggested`);
          assert.equal(found.id, s.id, `retrieve(${s.id}) answers the same id`);
          assert.equal(found.countryCode, country, `retrieve(${s.id}) answers its country`);
          for (const key of ["line1", "city", "zip", "text"] as const) {
            assert.ok(
              typeof found[key] === "string" && found[key].trim().length > 0,
              `${s.id}: ${key} is set`,
            );
          }
          for (const key of ["line2", "state"] as const) {
            const value = found[key];
            assert.ok(
              value === undefined || (typeof value === "string" && value.trim().length > 0),
              `${key}`,
            );
          }
          if (country === "US" || country === "CA") assert.ok(found.state, `${s.id}: a state in ${country}`);
          assert.deepEqual(await provider.retrieve(s.id), found, `retrieve(${s.id}) answers the same twice`);
        }
      }),

    "retrieve answers undefined, never throwing, for an unknown id, a Container id and a string that is no id":
      run(async ({ provider, explore }) => {
        const all = await explore();
        const answered = new Set(all.map((s) => s.id));
        const strings = [
          `${country}|no-such-address-0`,
          `${country}|`,
          "",
          "not an id",
          "|",
          country,
          `${country.toLowerCase()}|x`,
          `${NO_COUNTRY}|whatever`,
          "../etc/passwd",
          "x".repeat(10_000),
          "\u0000",
        ];
        for (const s of all) {
          if (s.type === "Container") strings.push(s.id);
          else strings.push(`${s.id}0`, s.id.slice(0, -1), s.id.toLowerCase(), ` ${s.id}`);
        }
        for (const id of strings) {
          if (answered.has(id) && all.find((s) => s.id === id)?.type === "Address") continue;
          let found: StructuredAddress | undefined;
          try {
            found = await provider.retrieve(id);
          } catch (error) {
            assert.fail(
              `retrieve(${show(id)}) threw ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          assert.equal(found, undefined, `retrieve(${show(id)}) answers undefined, got ${show(found)}`);
        }
      }),

    "results do not depend on letter case or on spaces around the query": run(async ({ search }) => {
      for (const query of queries) {
        const answer = await search(query);
        assert.ok(answer.length > 0, `search(${show(query)}) finds something`);
        for (const variant of [
          query.toUpperCase(),
          query.toLowerCase(),
          `  ${query}\t `,
          `\n${query.toUpperCase()} `,
        ]) {
          assert.deepEqual(
            await search(variant),
            answer,
            `search(${show(variant)}) answers as search(${show(query)})`,
          );
        }
        const container = answer.find((s) => s.type === "Container");
        if (container) {
          const inside = await search(query, { container: container.id });
          assert.deepEqual(
            await search(` ${query.toUpperCase()} `, { container: container.id }),
            inside,
            `inside ${container.id}, case and spaces do not matter either`,
          );
        }
      }
    }),

    "a provider that cannot answer throws provider_unavailable, never an empty list": async () => {
      if (!options.unreachable) return notApplicable("no unreachable factory given (options.unreachable)");
      const provider = await options.unreachable();
      for (const query of [options.knownQuery, options.nothingQuery ?? DEFAULT_NOTHING]) {
        await refusedWith(
          () => provider.search({ query, country_code: country }),
          "provider_unavailable",
          `search(${show(query)}) of an unreachable provider`,
        );
      }
    },
  };

  return {
    name: options.name ? `address provider contract (${options.name})` : "address provider contract",
    tests: kitTests(ADDRESS_PROVIDER_CONTRACT_NAMES, tests, ADDRESS_PROVIDER_REQUIREMENTS, options.disable),
  };
}
