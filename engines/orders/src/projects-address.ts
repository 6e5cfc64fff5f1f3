import { joinPath } from "./issues.ts";
import { field, isJsonObject, type JsonObject } from "./json-access.ts";
import { type CheckedManualAddress, checkManualAddress, type ManualAddressField } from "./manual-address.ts";
import { unprintableCharacters, unprintableMessage } from "./printable-text.ts";
import { checkUnknownFields, ProjectsIssueList, type ProjectsParse } from "./projects-issues.ts";
import { charCount } from "./text-length.ts";

/** A sender or recipient of the Projects API, checked: the name, and the address as the machine API checks it. */
export interface ProjectsAddress {
  name: string;
  company?: string;
  address: CheckedManualAddress;
}

export interface ProjectsAddressRules {
  /** The longest name the route prints (some routes take 40 or 45); at most, and by default, MAX_PROJECTS_NAME_CHARS. */
  maxNameLength?: number;
}

/** The longest name and company of a Projects API address. */
export const MAX_PROJECTS_NAME_CHARS = 255;

/** The fields of the spec 3 address object and the other names each may be sent under. */
export const PROJECTS_ADDRESS_ALIASES = Object.freeze({
  name: [],
  company: [],
  line1: ["street1", "address_line1", "addressLine1"],
  line2: ["street2", "address_line2", "addressLine2"],
  city: ["address_city", "addressCity"],
  state: ["province", "provinceOrState", "address_state", "addressState"],
  postal_code: ["postalCode", "postalOrZip", "zip", "address_zip", "addressZip"],
  countryCode: ["country_code", "country", "address_country", "addressCountry"],
} as const satisfies Record<string, readonly string[]>);

type AddressField = keyof typeof PROJECTS_ADDRESS_ALIASES;

const FIELDS = Object.keys(PROJECTS_ADDRESS_ALIASES) as AddressField[];
const KNOWN_KEYS: ReadonlySet<string> = new Set(
  FIELDS.flatMap((name): string[] => [name, ...PROJECTS_ADDRESS_ALIASES[name]]),
);

/** The spec 3 field each manual address field is reported at. */
const FIELD_OF: Readonly<Record<ManualAddressField, AddressField>> = Object.freeze({
  line1: "line1",
  line2: "line2",
  city: "city",
  state: "state",
  zip: "postal_code",
  countryCode: "countryCode",
});

/**
 * Parses the address object of spec 3 at `path` ("recipient", "sender"). Each field may be sent under its name or
 * one of its aliases (PROJECTS_ADDRESS_ALIASES); sending several that differ is conflicting_alias. Every issue is at
 * `${path}.<field>` under the field's spec 3 name, also when it was sent under an alias.
 * - name: required, 1 to 255 characters after trimming, fewer when `rules.maxNameLength` says so; a longer name is
 *   name_too_long, never shortened; no character that cannot be printed.
 * - company: optional, at most 255 characters, printable; blank counts as absent.
 * - line1, line2, city, state, postal_code, countryCode: the machine API's manual address rules
 *   (checkManualAddress): line1, city and postal_code required, US by default, state and ZIP or postal code checked
 *   for US and CA, the state normalised to its code. A countryCode of two characters is read in any case.
 * Unknown fields are unknown_field; a value of the wrong type is invalid_type. Never throws.
 */
export function parseProjectsAddress(
  value: unknown,
  path: string,
  rules: ProjectsAddressRules,
): ProjectsParse<ProjectsAddress> {
  const issues = new ProjectsIssueList();
  if (value === undefined) {
    issues.add(path, "required", `${path === "" ? "The address" : path} is required.`);
    return { ok: false, issues: issues.items };
  }
  if (!isJsonObject(value)) {
    issues.add(path, "invalid_type", `${path === "" ? "The address" : path} must be an object.`);
    return { ok: false, issues: issues.items };
  }
  checkUnknownFields(value, KNOWN_KEYS, path, "an address", issues);

  const given: Partial<Record<AddressField, string>> = {};
  for (const name of FIELDS) {
    const text = readAliased(value, name, path, issues);
    if (text !== undefined) given[name] = text;
  }

  const maxName = nameLimit(rules.maxNameLength);
  const name = checkName(given.name, maxName, joinPath(path, "name"), issues);
  const company = checkCompany(given.company, joinPath(path, "company"), issues);

  const country = given.countryCode?.trim();
  const { address, problems } = checkManualAddress(
    {
      line1: given.line1,
      line2: given.line2,
      city: given.city,
      state: given.state,
      zip: given.postal_code,
      countryCode: country?.length === 2 ? country.toUpperCase() : given.countryCode,
    },
    { lenientCountry: false, labels: { zip: "postal_code" } },
  );
  for (const problem of problems) {
    const at = joinPath(path, FIELD_OF[problem.field]);
    // A field already refused (wrong type, conflicting aliases) read as absent: its "required" is not news.
    if (!issues.has(at)) issues.add(at, problem.code, problem.message);
  }

  if (issues.length > 0 || name === undefined || address === undefined) {
    return { ok: false, issues: issues.items };
  }
  return { ok: true, value: { name, ...(company === undefined ? {} : { company }), address } };
}

/**
 * The text of a field sent under its name or its aliases: a value that is not a string is invalid_type, and strings
 * that differ are conflicting_alias; undefined then, and when the field is absent.
 */
function readAliased(
  object: JsonObject,
  name: AddressField,
  path: string,
  issues: ProjectsIssueList,
): string | undefined {
  const at = joinPath(path, name);
  const sent = [name, ...PROJECTS_ADDRESS_ALIASES[name]]
    .map((key) => ({ key, value: field(object, key) }))
    .filter((entry) => entry.value !== undefined);
  const wrong = sent.find((entry) => typeof entry.value !== "string");
  if (wrong !== undefined) {
    issues.add(at, "invalid_type", `${wrong.key} must be a string.`);
    return undefined;
  }
  const texts = sent.map((entry) => entry.value as string);
  if (new Set(texts).size > 1) {
    issues.add(
      at,
      "conflicting_alias",
      `${sent.map((entry) => entry.key).join(" and ")} are the same field (${name}) with different values; send one of them.`,
    );
    return undefined;
  }
  return texts[0];
}

/** The route's name limit, never above MAX_PROJECTS_NAME_CHARS; a limit that is not a positive integer is ignored. */
function nameLimit(max: number | undefined): number {
  return max !== undefined && Number.isInteger(max) && max >= 1
    ? Math.min(max, MAX_PROJECTS_NAME_CHARS)
    : MAX_PROJECTS_NAME_CHARS;
}

function checkName(
  name: string | undefined,
  max: number,
  at: string,
  issues: ProjectsIssueList,
): string | undefined {
  if (name === undefined) {
    if (!issues.has(at)) issues.add(at, "required", "name is required.");
    return undefined;
  }
  const trimmed = name.trim();
  if (trimmed === "") {
    issues.add(at, "too_short", "name must not be blank.");
    return undefined;
  }
  const length = charCount(trimmed);
  if (length > max) {
    issues.add(
      at,
      "name_too_long",
      `name must be at most ${max} characters here; it has ${length}. Names are never shortened: send a shorter one.`,
    );
    return undefined;
  }
  const unprintable = unprintableCharacters(trimmed);
  if (unprintable.length > 0) {
    issues.add(at, "character_unsupported", unprintableMessage("name", unprintable));
    return undefined;
  }
  return trimmed;
}

function checkCompany(
  company: string | undefined,
  at: string,
  issues: ProjectsIssueList,
): string | undefined {
  const trimmed = company?.trim();
  if (trimmed === undefined || trimmed === "") return undefined;
  if (charCount(trimmed) > MAX_PROJECTS_NAME_CHARS) {
    issues.add(at, "too_long", `company must be at most ${MAX_PROJECTS_NAME_CHARS} characters.`);
    return undefined;
  }
  const unprintable = unprintableCharacters(trimmed);
  if (unprintable.length > 0) {
    issues.add(at, "character_unsupported", unprintableMessage("company", unprintable));
    return undefined;
  }
  return trimmed;
}
