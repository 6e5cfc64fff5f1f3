import { type ReturnReceipt, wantsElectronicReturnReceipt } from "@mailpiece/ports";
import { returnReceiptPdf } from "./return-receipt-pdf.ts";
import { deliveryOf, type SimulatedJobRecord } from "./simulated-job.ts";
import { trackingNumberFor } from "./tracking-number.ts";

/**
 * The signed electronic return receipt of a simulated job at `now`: there is one for a certified letter that asked
 * for an electronic receipt, from the moment it is delivered, signed by the recipient (by name) at delivery. It is
 * computed from the job alone, so every call and every process gives the same receipt, PDF byte for byte.
 */
export async function returnReceiptAt(
  record: SimulatedJobRecord,
  now: number,
): Promise<ReturnReceipt | undefined> {
  const job = record.job;
  if (job.mailpiece_type !== "letter" || !wantsElectronicReturnReceipt(job)) return undefined;
  const delivery = deliveryOf(record);
  if (delivery === undefined || now < delivery.at) return undefined;
  const trackingNumber = trackingNumberFor(record.reference);
  const signerName = job.recipient.name.trim();
  const pdf = await returnReceiptPdf({
    reference: record.reference,
    trackingNumber,
    recipient: job.recipient,
    signedAt: delivery.at,
    deliveryLocation: delivery.location,
    signerName,
  });
  return {
    pdf,
    tracking_number: trackingNumber,
    signed_at: new Date(delivery.at).toISOString(),
    signer_name: signerName,
    delivery_location: delivery.location,
  };
}
