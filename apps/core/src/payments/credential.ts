import type { PaymentCredential, PaymentRail } from "@mailpiece/ports";

/**
 * Reads a rail's credential from the value a client sent (the raw header value, or a tool argument), without any
 * transport: undefined when there is none or it belongs to another scheme (an `Authorization: Bearer` for MPP);
 * rejects with the rail's PaymentError `malformed_credential` when it is the rail's own and does not decode.
 */
export async function readCredential(
  rail: PaymentRail,
  value: string | undefined,
): Promise<PaymentCredential | undefined> {
  if (value === undefined || value === "") return undefined;
  return rail.parseCredential(value);
}
