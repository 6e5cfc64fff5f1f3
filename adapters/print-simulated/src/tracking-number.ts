import { createHash } from "node:crypto";

/**
 * The tracking number of a simulated job: `SIM` and 20 digits (the length of a USPS tracking number), derived
 * from the job's reference, so every process computes the same one.
 */
export function trackingNumberFor(reference: string): string {
  const digest = createHash("sha256").update(`tracking:${reference}`).digest("hex");
  const digits = (BigInt(`0x${digest}`) % 10n ** 20n).toString().padStart(20, "0");
  return `SIM${digits}`;
}

/** The tracking page of `trackingNumber` under `base` (an absolute https URL). */
export function trackingUrlFor(base: string, trackingNumber: string): string {
  return new URL(encodeURIComponent(trackingNumber), base).toString();
}

/** Checks and normalises a tracking base URL: absolute https, ending with a slash. Throws TypeError otherwise. */
export function resolveTrackingBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError(`trackingUrlBase must be an absolute https URL, got ${JSON.stringify(base)}`);
  }
  if (url.protocol !== "https:") {
    throw new TypeError(`trackingUrlBase must be an https URL, got ${JSON.stringify(base)}`);
  }
  url.search = "";
  url.hash = "";
  const text = url.toString();
  return text.endsWith("/") ? text : `${text}/`;
}
