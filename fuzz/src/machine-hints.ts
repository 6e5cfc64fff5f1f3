import { DEFAULT_SUITE_ADDRESSES, manualAddress, pdfDataUrl } from "@mailpiece/conformance";
import fc from "fast-check";
import type { Hint } from "./schema-arbitrary.ts";

/**
 * Realistic values for the machine order fields whose schema alone rarely reaches the code behind them (the machine
 * API, the MCP tools and UCP checkouts share them): a PDF that parses, address ids of the embedded sample with
 * their texts, manual addresses that exist, letter text, published form slugs.
 */
export function machineHint(given: {
  pdf: Uint8Array;
  postcardPdf: Uint8Array;
  formSlugs: () => string[];
}): Hint {
  const { us, ca } = DEFAULT_SUITE_ADDRESSES;
  return (name) => {
    switch (name) {
      case "pdf":
        return fc.constantFrom(
          pdfDataUrl(given.pdf),
          pdfDataUrl(given.postcardPdf),
          "data:application/pdf;base64,JVBERi0=",
        );
      case "sender_address_id":
      case "recipient_address_id":
        return fc.constantFrom(us.id, ca.id);
      case "sender_address_text":
      case "recipient_address_text":
        return fc.constantFrom(us.text, ca.text);
      case "sender_address_type":
      case "recipient_address_type":
        return fc.constantFrom("Address", "Manual");
      case "sender_address_manual":
      case "recipient_address_manual":
        return fc.constantFrom(
          manualAddress(),
          manualAddress({ line1: "350 Fifth Avenue", city: "New York", state: "NY", zip: "10118" }),
          manualAddress({
            line1: "111 Wellington St",
            city: "Ottawa",
            state: "ON",
            zip: "K1A 0A9",
            countryCode: "CA",
          }),
        );
      case "letter":
        return fc.lorem({ maxCount: 40, mode: "sentences" });
      case "slug": {
        const slugs = given.formSlugs();
        return slugs.length > 0 ? fc.constantFrom(...slugs) : undefined;
      }
      case "zipcode":
        return fc.constantFrom("10118", "20500", "94103");
      case "query":
        return fc.constantFrom("350 Fifth Avenue", "350 Fifth", "111 Wellington", "Pennsylvania Ave");
      default:
        return undefined;
    }
  };
}
