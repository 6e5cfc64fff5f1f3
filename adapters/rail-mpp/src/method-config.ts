import type { Charge } from "@mailpiece/ports";
import type { Credential, Method, Receipt } from "mppx";

/**
 * One payment method the MPP rail offers: an mppx server method plus the mapping from a Mailpiece `Charge` to
 * that method's request. Build one with `testMethod`, `tempoMethod` or `stripeMethod`, or write your own for
 * another mppx method.
 */
export interface MppMethodConfig {
  /** The mppx server method (`Method.toServer(...)`, or one of mppx's built-ins such as `tempo.charge(...)`). */
  readonly server: Method.AnyServer;
  /**
   * The method's route request for one charge, before the method's own defaults and schema transforms: the
   * amount in the method's units, and the order reference (`externalId`) where the method has one. Fields the
   * method was configured with (currency, recipient) come from its defaults.
   */
  request(charge: Charge): Record<string, unknown>;
  /** True when the method moves no real money (development and tests). */
  readonly simulated: boolean;
  /**
   * Optional: where the charge of a verified credential stands, read without moving money, for the rail's
   * `confirm` (asked only after the settle lease has passed since settle began): the receipt when the funds
   * arrived, `failed` when they never will, `pending` otherwise. The rail answers `pending` for methods without it.
   */
  confirm?(question: MppConfirmQuestion): Promise<MppConfirmAnswer>;
}

/** What a method's `confirm` is asked about: the credential `verify` accepted, and what settle left behind. */
export interface MppConfirmQuestion {
  credential: Credential.Credential;
  /** The reference settle returned, when it returned one. */
  reference?: string;
  /** When settle began, milliseconds since the epoch. */
  startedAt: number;
}

export type MppConfirmAnswer =
  | { status: "settled"; receipt: Receipt.Receipt }
  | { status: "pending" }
  | { status: "failed"; message: string };

/** Integer cents as a decimal string in whole units: 1234 -> "12.34", 5 -> "0.05". */
export function centsToDecimal(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new RangeError(`amount_cents must be a non-negative integer, got ${cents}`);
  }
  const whole = Math.floor(cents / 100);
  const fraction = String(cents % 100).padStart(2, "0");
  return `${whole}.${fraction}`;
}
