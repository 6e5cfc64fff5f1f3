import { type PrintCapabilities, RETURN_RECEIPT_FORMATS } from "@mailpiece/ports";

/**
 * What the simulated printer carries unless told otherwise: every country, mailpiece, size, class and option
 * Mailpiece sells, mailed from the US, with registered mail where the price book offers it, handwritten mail, and
 * electronic and physical return receipts with certified letters (it fetches the electronic ones).
 */
export const SIMULATED_CAPABILITIES: Readonly<PrintCapabilities> = deepFreeze({
  origin_country: "US",
  countries: ["US", "CA", "AT", "BE", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL"],
  mailpiece_types: ["letter", "postcard", "handwritten"],
  postcard_sizes: ["4x6", "6x9", "11x6"],
  mail_classes: ["standard", "priority", "express"],
  certified: true,
  registered: ["CA", "BE", "CH", "ES", "FR"],
  international_postcards: { sizes: ["4x6", "6x9", "11x6"], return_address: "any" },
  color: true,
  double_sided: true,
  return_receipts: ["electronic", "physical"],
});

/**
 * A frozen deep copy of `capabilities`; throws TypeError for a country code that is not upper-case alpha-2, an
 * unknown return receipt format, or return receipts without certified mail at home.
 */
export function resolveCapabilities(capabilities: PrintCapabilities): Readonly<PrintCapabilities> {
  const copy = structuredClone(capabilities) as PrintCapabilities;
  for (const code of [copy.origin_country, ...copy.countries, ...copy.registered]) {
    if (typeof code !== "string" || !/^[A-Z]{2}$/.test(code)) {
      throw new TypeError(
        `capabilities: ${JSON.stringify(code)} is not an upper-case ISO 3166-1 alpha-2 code`,
      );
    }
  }
  const receipts = copy.return_receipts ?? [];
  for (const format of receipts) {
    if (!RETURN_RECEIPT_FORMATS.includes(format)) {
      throw new TypeError(`capabilities.return_receipts: ${JSON.stringify(format)} is not a receipt format`);
    }
  }
  if (receipts.length > 0 && !(copy.certified && copy.countries.includes(copy.origin_country))) {
    throw new TypeError(
      "capabilities.return_receipts need certified mail at home (certified, origin_country)",
    );
  }
  return deepFreeze(copy);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
