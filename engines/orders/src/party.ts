import { parseAddressId } from "./address-id.ts";
import { type CountryCode, isAllowedCountry } from "./countries.ts";
import { type IssueList, joinPath } from "./issues.ts";
import { enumField, field, type JsonObject, objectField, present, stringField } from "./json-access.ts";
import { type CheckedManualAddress, checkManualAddress } from "./manual-address.ts";
import { ADDRESS_TYPES } from "./order-request-schema.ts";
import { unprintableCharacters, unprintableMessage } from "./printable-text.ts";
import { charCount, isBlank } from "./text-length.ts";

/**
 * The structured address behind an address search id, as the deployment's address provider answers it: the fields
 * of a manual address, so that it prints as one would. `countryCode` is ISO alpha-2, upper case.
 */
export interface ResolvedAddress {
  line1: string;
  line2?: string;
  city: string;
  /** State, province or region where the country uses one. */
  state?: string;
  zip: string;
  countryCode: string;
}

/**
 * A sender or recipient, resolved. `country` is the ISO alpha-2 code of the address: the countryCode of a manual
 * address (US when none was given), the leading segment of an address search id. An address given by id carries
 * `resolved`, the structured address the address provider answered for the id, once it was looked up; what prints
 * comes from it, and the id's text is only shown.
 */
export interface Party {
  name: string;
  /** A company or organisation, printed on a line of its own under the name (Projects API addresses). */
  company?: string;
  country: string;
  address:
    | { type: "Address"; id: string; text: string; resolved?: ResolvedAddress }
    | ({ type: "Manual" } & ResolvedAddress);
}

export type PartyRole = "sender" | "recipient";

/** What is known of a party after its own fields were read; the manual address is checked once the order is known. */
export interface PartyDraft {
  role: PartyRole;
  name?: string;
  mode: "Address" | "Manual";
  address?: { type: "Address"; id: string; text: string };
  manual?: JsonObject;
  /** The country when the request states it (address id, or an explicit valid countryCode). */
  statedCountry?: CountryCode;
}

/**
 * Reads the name and address strategy of one party and reports what is missing or contradictory.
 * Address mode (stated, or assumed when no manual address is given) needs `*_address_id` and `*_address_text`
 * and forbids `*_address_manual`; Manual mode needs `*_address_manual` and forbids the id and text.
 */
export function readParty(body: JsonObject, role: PartyRole, issues: IssueList): PartyDraft {
  const key = (suffix: string) => `${role}_${suffix}`;
  const draft: PartyDraft = { role, mode: "Address" };

  const nameKey = key("name");
  const name = stringField(body, nameKey);
  if (!present(body, nameKey)) issues.add(nameKey, "required", `${nameKey} is required.`);
  else if (name !== undefined && isBlank(name))
    issues.add(nameKey, "too_short", `${nameKey} must not be blank.`);
  else if (name !== undefined && charCount(name) <= 256) {
    const unprintable = unprintableCharacters(name);
    if (unprintable.length > 0)
      issues.add(nameKey, "character_unsupported", unprintableMessage(nameKey, unprintable));
    else draft.name = name.trim();
  }

  const typeKey = key("address_type");
  const idKey = key("address_id");
  const textKey = key("address_text");
  const manualKey = key("address_manual");
  const stated = enumField(body, typeKey, ADDRESS_TYPES);
  const hasManual = present(body, manualKey);
  draft.mode = stated ?? (hasManual ? "Manual" : "Address");

  if (draft.mode === "Address") {
    for (const required of [idKey, textKey]) {
      if (!present(body, required)) {
        issues.add(
          required,
          "required",
          `${required} is required when the ${role} address is given by id (Address mode).`,
        );
      }
    }
    if (hasManual) {
      issues.add(
        manualKey,
        "address_strategy_conflict",
        stated === undefined
          ? `Send either ${manualKey} or ${idKey} with ${textKey}, not both.`
          : `${typeKey} is Address, so ${manualKey} is not allowed; remove it or set ${typeKey} to Manual.`,
      );
    }
    const id = stringField(body, idKey);
    const text = stringField(body, textKey);
    if (id !== undefined) {
      const check = parseAddressId(id);
      if (check.ok) draft.statedCountry = check.country;
      else issues.add(idKey, check.code, check.message);
    }
    const unprintable = text === undefined ? [] : unprintableCharacters(text);
    if (text !== undefined && isBlank(text))
      issues.add(textKey, "too_short", `${textKey} must not be blank.`);
    else if (unprintable.length > 0)
      issues.add(textKey, "character_unsupported", unprintableMessage(textKey, unprintable));
    else if (id !== undefined && text !== undefined)
      draft.address = { type: "Address", id, text: text.trim() };
    return draft;
  }

  if (!hasManual) {
    issues.add(manualKey, "required", `${manualKey} is required when ${typeKey} is Manual.`);
  }
  const conflicting = [idKey, textKey].filter((k) => present(body, k));
  for (const k of conflicting) {
    issues.add(
      k,
      "address_strategy_conflict",
      stated === undefined
        ? `Send either ${manualKey} or ${idKey} with ${textKey}, not both.`
        : `${typeKey} is Manual, so ${k} is not allowed; remove it or set ${typeKey} to Address.`,
    );
  }
  const manual = objectField(body, manualKey);
  if (manual !== undefined) {
    draft.manual = manual;
    const country = field(manual, "countryCode");
    if (typeof country === "string" && isAllowedCountry(country)) draft.statedCountry = country;
  }
  return draft;
}

/**
 * Finishes a party: checks its manual address (a US address may leave countryCode out, any other must state it)
 * and returns the resolved party, or undefined when something is missing or wrong.
 */
export function finishParty(draft: PartyDraft, issues: IssueList): Party | undefined {
  const manualPath = `${draft.role}_address_manual`;
  let address: Party["address"] | undefined = draft.address;
  let country: string | undefined = draft.statedCountry;
  if (draft.mode === "Manual" && draft.manual !== undefined) {
    const manual = draft.manual;
    const { address: checked, problems } = checkManualAddress(
      {
        line1: stringField(manual, "line1"),
        line2: stringField(manual, "line2"),
        city: stringField(manual, "city"),
        state: stringField(manual, "state"),
        zip: stringField(manual, "zip"),
        countryCode: stringField(manual, "countryCode"),
      },
      { lenientCountry: false },
    );
    for (const problem of problems)
      issues.add(joinPath(manualPath, problem.field), problem.code, problem.message);
    if (checked !== undefined) {
      address = manualParty(checked);
      country = checked.countryCode;
    }
  }
  if (draft.name === undefined || address === undefined || country === undefined) return undefined;
  return { name: draft.name, country, address };
}

function manualParty(address: CheckedManualAddress): Party["address"] {
  return { type: "Manual", ...address };
}
