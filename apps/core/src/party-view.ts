import type { Party } from "@mailpiece/orders";
import { formatAddressLines, pieceAddressLines } from "@mailpiece/orders";

/**
 * A resolved party as the buyer sees it: how the address was given, the structured address (the manual one, or the
 * one an address id was resolved to), and the lines that will print.
 */
export interface PartyView {
  name: string;
  company?: string;
  country: string;
  address_type: "Address" | "Manual";
  address_id?: string;
  address_text?: string;
  address?: { line1: string; line2?: string; city: string; state?: string; zip: string; countryCode: string };
  lines: string[];
}

/** `international`: the piece crosses a border, so the window lines end with the country (see pieceAddressLines). */
export function partyView(party: Party, international?: boolean): PartyView {
  const lines = formatAddressLines(party, international === undefined ? {} : { international });
  if (party.address.type === "Address") {
    const { resolved } = party.address;
    return {
      name: party.name,
      ...(party.company ? { company: party.company } : {}),
      country: party.country,
      address_type: "Address",
      address_id: party.address.id,
      address_text: party.address.text,
      ...(resolved ? { address: { ...resolved } } : {}),
      lines,
    };
  }
  const { type: _type, ...address } = party.address;
  return {
    name: party.name,
    ...(party.company ? { company: party.company } : {}),
    country: party.country,
    address_type: "Manual",
    address,
    lines,
  };
}

/**
 * The window lines of a piece's parties, for the typesetter: on an international piece both end with their country.
 * Without a recipient (a campaign's shared sender), the sender's own lines.
 */
export function windowLines(
  sender: Party,
  recipient: Party | undefined,
): { sender: { lines: string[] }; recipient?: { lines: string[] } } {
  if (!recipient) return { sender: { lines: formatAddressLines(sender) } };
  const lines = pieceAddressLines(sender, recipient);
  return { sender: { lines: lines.sender }, recipient: { lines: lines.recipient } };
}
