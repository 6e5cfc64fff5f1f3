import type { Charge } from "@mailpiece/ports";
import type { PayableKind, PayableRecord } from "./payment-record.ts";

/**
 * What the payment flow needs to know about one kind of thing paid for (a machine order, a campaign, a flower letter): how to
 * load and update its record, what it costs, and what happens once its money has arrived. Everything else about
 * taking a payment is the same for every kind and lives in the flow.
 */
export interface Payable<R extends PayableRecord> {
  readonly kind: PayableKind;
  load(id: string): Promise<R | undefined>;
  /** Compare-and-set update; `change` returns undefined to leave the record as it is. */
  update(id: string, change: (record: R) => R | undefined): Promise<R>;
  /** The charge for this record, but for its resource URL, which the surface names. */
  charge(record: R): Omit<Charge, "resource_url">;
  /** Applied inside the update that records the money as arrived: the record's own next status. */
  onSettled(record: R, at: number): void;
  /** Once the record is durably paid: queue (or start) its work. Returns the record as it then stands. */
  afterPaid(record: R): Promise<R>;
}
