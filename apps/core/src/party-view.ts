import type { Party } from "@mailpiece/orders";
import { formatAddressLines } from "@mailpiece/orders";

/** A resolved party as the buyer sees it: how the address was given, and the lines that will print. */
export interface PartyView {
  name: string;
  country: string;
  address_type: "Address" | "Manual";
  address_id?: string;
  address_text?: string;
  address?: { line1: string; line2?: string; city: string; state?: string; zip: string; countryCode: string };
  lines: string[];
}

export function partyView(party: Party): PartyView {
  const lines = formatAddressLines(party);
  if (party.address.type === "Address") {
    return {
      name: party.name,
      country: party.country,
      address_type: "Address",
      address_id: party.address.id,
      address_text: party.address.text,
      lines,
    };
  }
  const { type: _type, ...address } = party.address;
  return { name: party.name, country: party.country, address_type: "Manual", address, lines };
}
