import type { PrintCapabilities } from "@mailpiece/ports";

/**
 * What the simulated printer carries unless told otherwise: every country, mailpiece, size, class and option
 * Mailpiece sells, mailed from the US, with registered mail where the price book offers it.
 */
export const SIMULATED_CAPABILITIES: Readonly<PrintCapabilities> = deepFreeze({
  origin_country: "US",
  countries: ["US", "CA", "AT", "BE", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL"],
  mailpiece_types: ["letter", "postcard"],
  postcard_sizes: ["4x6", "6x9", "11x6"],
  mail_classes: ["standard", "priority", "express"],
  certified: true,
  registered: ["CA", "BE", "CH", "ES", "FR"],
  international_postcards: { sizes: ["4x6", "6x9", "11x6"], return_address: "any" },
  color: true,
  double_sided: true,
});

/** A frozen deep copy of `capabilities`; throws TypeError for a country code that is not upper-case alpha-2. */
export function resolveCapabilities(capabilities: PrintCapabilities): Readonly<PrintCapabilities> {
  const copy = structuredClone(capabilities) as PrintCapabilities;
  for (const code of [copy.origin_country, ...copy.countries, ...copy.registered]) {
    if (typeof code !== "string" || !/^[A-Z]{2}$/.test(code)) {
      throw new TypeError(
        `capabilities: ${JSON.stringify(code)} is not an upper-case ISO 3166-1 alpha-2 code`,
      );
    }
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
