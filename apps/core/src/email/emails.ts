import type { Brand, RenderedMessage } from "@mailpiece/messages";
import { campaignReceipt, paymentReceipt, returnReceiptMail, statusMail } from "@mailpiece/messages";
import type {
  BlobStore,
  Clock,
  EmailAddress,
  EmailAttachment,
  EmailSender,
  JobQueue,
  Store,
} from "@mailpiece/ports";
import { EMAIL_LIMITS, EmailError, isRetryableEmailError } from "@mailpiece/ports";
import { updateCampaign } from "../campaign-record.ts";
import { loadFlowerLetter, updateFlowerLetter } from "../flowers/record.ts";
import type { JobOutcome, QueueWork } from "../job-runner.ts";
import { loadCampaign } from "../mailings.ts";
import type { OrderRecord } from "../order-record.ts";
import { addStep, loadOrder, updateOrder } from "../order-record.ts";
import type { PayableKind, PayableRecord } from "../payments/payment-record.ts";
import { loadReceipt, receiptBlobKey } from "../receipts/receipt-record.ts";
import type { WorkspaceRecord } from "../workspaces/workspaces.ts";
import { workspaceKey } from "../workspaces/workspaces.ts";
import {
  campaignItem,
  flowerItem,
  flowerLines,
  orderItem,
  paymentDetails,
  quoteLines,
} from "./email-content.ts";
import type { EmailJob, MailedStatus } from "./email-jobs.ts";
import { EMAIL_QUEUE, emailKey, enqueueEmail, STATUS_MAILS } from "./email-jobs.ts";

/** Links a mail may carry to pages of the deployment; each surface's own (the core knows no URL). */
export interface EmailLinks {
  order?(id: string): string;
  campaign?(id: string): string;
}

export interface EmailDeps {
  store: Store;
  blobs: BlobStore;
  jobs: JobQueue;
  clock: Clock;
  sender: EmailSender;
  /** The mailbox every mail is sent from (e.g. `Mailpiece <receipts@mail.example.com>`). */
  from: EmailAddress;
  replyTo?: EmailAddress;
  brand?: Brand;
  links?: EmailLinks;
  /** Told of a mail given up for good (a permanent refusal); default: ignored. */
  onGivenUp?: (job: EmailJob, error: unknown) => void;
  /** The electronic return receipts' email states. */
  receipts: {
    markEmailed(orderId: string): Promise<void>;
    markEmailFailed(orderId: string, reason: string): Promise<void>;
  };
}

/** Email of the machine surfaces: receipts of paid orders, status mails and signed return receipts. */
export interface Emails {
  /** A record was paid: its receipt is queued (idempotent; a paid record without a buyer email gets none). */
  paid(kind: PayableKind, record: PayableRecord): Promise<void>;
  /** After a fulfilment round of an order: a status mail is queued for each status a buyer hears about. */
  noteOrder(order: OrderRecord): Promise<void>;
  /** A signed return receipt that is to be emailed was stored: its mail is queued. */
  returnReceiptStored(orderId: string): Promise<void>;
  readonly work: QueueWork<EmailJob>;
}

/**
 * Which mails of an order were queued already (`email-notes:<order id>`), so each is queued once: its status mails,
 * and for a Projects API order its receipt.
 */
interface EmailNotes {
  statuses: MailedStatus[];
  receipt?: boolean;
}
const notesKey = (orderId: string) => `email-notes:${orderId}`;

/** A receipt attaches the letter that will be mailed while it stays well within the mail's size limit. */
const MAX_ATTACHED_PDF_BYTES = Math.floor(EMAIL_LIMITS.max_attachment_bytes / 2);
/** How long a return receipt mail queued before its receipt is committed waits to look again. */
const RECEIPT_NOT_READY_MS = 60_000;

/** The address a machine order's mail goes to; none for drafts, Projects API orders and campaign pieces. */
function buyerOf(order: OrderRecord): string | undefined {
  if (order.project || order.campaign_id) return undefined;
  return order.order.buyer_email || undefined;
}

export function createEmails(deps: EmailDeps): Emails {
  const now = () => deps.clock.now();
  const mailbox = (address: string, name?: string): EmailAddress => ({
    address,
    ...(name ? { name: name.replace(/[\p{Cc}]/gu, " ").slice(0, EMAIL_LIMITS.max_name_chars) } : {}),
  });
  const brand = deps.brand ? { brand: deps.brand } : {};

  /** Sends one rendered message under the job's key; answers the time it was sent. */
  const send = async (
    job: EmailJob,
    to: EmailAddress,
    message: RenderedMessage,
    attachments: EmailAttachment[] = [],
  ): Promise<number> => {
    const result = await deps.sender.send({
      key: emailKey(job),
      from: deps.from,
      to: [to],
      ...(deps.replyTo ? { replyTo: deps.replyTo } : {}),
      subject: message.subject,
      text: message.text,
      html: message.html,
      ...(attachments.length > 0 ? { attachments } : {}),
      headers: { "Auto-Submitted": "auto-generated" },
    });
    return Date.parse(result.sent_at);
  };

  const orderLink = (id: string) => (deps.links?.order ? { status_url: deps.links.order(id) } : {});

  /** Who gets an order's receipt: the buyer of a machine order, the account email of a Projects API order's workspace. */
  const receiverOf = async (order: OrderRecord): Promise<EmailAddress | undefined> => {
    if (!order.project) {
      const buyer = buyerOf(order);
      return buyer ? mailbox(buyer, order.order.buyer_name) : undefined;
    }
    const workspace = await deps.store.get<WorkspaceRecord>(workspaceKey(order.project.workspace_id));
    return workspace?.value.email ? mailbox(workspace.value.email, workspace.value.name) : undefined;
  };

  const receiptOfOrder = async (job: EmailJob, id: string): Promise<JobOutcome> => {
    const order = (await loadOrder(deps.store, id))?.value;
    const to = order ? await receiverOf(order) : undefined;
    if (!order || !to || order.steps.some((s) => s.step === "email_sent")) return "done";
    // A Projects API order is paid from the credits when it is placed; a machine order once its payment settled.
    const project = order.project;
    const payment = project
      ? {
          rail: "credits" as const,
          reference: project.reservation_id,
          paid_at: new Date(order.created_at).toISOString(),
        }
      : order.payment_status === "paid" && order.payment
        ? paymentDetails(order.payment, order.updated_at)
        : undefined;
    if (!payment) return "done";
    const pdf = await deps.blobs.get(order.document.blob_key);
    const attachments =
      pdf && pdf.bytes.byteLength <= MAX_ATTACHED_PDF_BYTES
        ? [{ filename: `${order.id}.pdf`, contentType: "application/pdf", content: pdf.bytes }]
        : [];
    const sentAt = await send(
      job,
      to,
      paymentReceipt({
        ...brand,
        order_id: order.id,
        item: orderItem(order),
        line_items: quoteLines(order.quote),
        total_cents: order.quote.price_cents,
        currency: "usd",
        payment,
        ...(project ? { test_mode: project.mode === "test" } : orderLink(order.id)),
      }),
      attachments,
    );
    // The receipt is with the mail server: the order's steps say so.
    await updateOrder(deps.store, id, now, (o) => {
      if (o.steps.some((s) => s.step === "email_sent")) return undefined;
      addStep(o, "email_sent", sentAt);
      return o;
    });
    return "done";
  };

  const receiptOfCampaign = async (job: EmailJob, id: string): Promise<JobOutcome> => {
    const campaign = await loadCampaign(deps, id);
    const to = campaign?.order.buyer_email;
    if (!campaign || !to || campaign.payment_status !== "paid" || !campaign.payment) return "done";
    if (campaign.steps.some((s) => s.step === "email_sent")) return "done";
    const sentAt = await send(
      job,
      mailbox(to, campaign.order.buyer_name),
      campaignReceipt({
        ...brand,
        campaign_id: campaign.id,
        campaign_name: campaign.plan.name,
        pieces: campaign.plan.pieces.length,
        item: campaignItem(campaign),
        line_items: quoteLines(campaign.quote),
        total_cents: campaign.quote.price_cents,
        currency: "usd",
        payment: paymentDetails(campaign.payment, campaign.updated_at),
        ...(deps.links?.campaign ? { campaign_url: deps.links.campaign(campaign.id) } : {}),
      }),
    );
    await updateCampaign(deps.store, id, now, (c) => {
      if (c.steps.some((s) => s.step === "email_sent")) return undefined;
      addStep(c, "email_sent", sentAt);
      return c;
    });
    return "done";
  };

  const receiptOfFlowerLetter = async (job: EmailJob, id: string): Promise<JobOutcome> => {
    const flower = await loadFlowerLetter(deps.store, id);
    if (flower?.payment_status !== "paid" || !flower.payment || flower.receipt_emailed_at) return "done";
    const sentAt = await send(
      job,
      mailbox(flower.request.buyer_email, flower.request.buyer_name),
      paymentReceipt({
        ...brand,
        order_id: flower.id,
        item: flowerItem(flower),
        line_items: flowerLines(flower),
        total_cents: flower.quote.total_cents,
        currency: "usd",
        payment: paymentDetails(flower.payment, flower.updated_at),
      }),
    );
    await updateFlowerLetter(deps, id, (f) =>
      f.receipt_emailed_at ? undefined : { ...f, receipt_emailed_at: sentAt },
    );
    return "done";
  };

  const statusOf = async (job: EmailJob, id: string, status: MailedStatus): Promise<JobOutcome> => {
    const order = (await loadOrder(deps.store, id))?.value;
    const to = order ? buyerOf(order) : undefined;
    const reached = order?.lifecycle?.timeline.find((event) => event.status_after === status);
    if (!order || !to || !reached) return "done";
    const fulfilment = order.fulfilment;
    await send(
      job,
      mailbox(to, order.order.buyer_name),
      statusMail({
        ...brand,
        order_id: order.id,
        item: orderItem(order),
        status: STATUS_MAILS[status],
        at: reached.created_at,
        tracking_number: fulfilment?.tracking_number ?? null,
        tracking_url: fulfilment?.tracking_url ?? null,
        ...orderLink(order.id),
      }),
    );
    return "done";
  };

  const returnReceiptOf = async (job: EmailJob, id: string): Promise<JobOutcome> => {
    const record = await loadReceipt(deps.store, id);
    if (record?.err_delivery !== "email") return "done";
    // Queued just before its receipt is committed: a look a little later finds it stored.
    if (record.state === "awaiting") return { again: now() + RECEIPT_NOT_READY_MS };
    if (record.state !== "stored" && record.state !== "email_failed") return "done";
    const order = (await loadOrder(deps.store, id))?.value;
    const errEmail = order?.order.options.err_email;
    const to = order ? (errEmail ? mailbox(errEmail) : await receiverOf(order)) : undefined;
    if (!order || !to) {
      await deps.receipts.markEmailFailed(id, "The order names no address to email its return receipt to.");
      return "done";
    }
    const pdf = await deps.blobs.get(receiptBlobKey(id));
    if (!pdf) return "done";
    const filename = `return-receipt-${id}.pdf`;
    await send(
      job,
      to,
      returnReceiptMail({
        ...brand,
        order_id: id,
        item: orderItem(order),
        delivered_at: record.signed_at ?? new Date(record.noted_at).toISOString(),
        signed_by: record.signer_name,
        attachment_filename: filename,
      }),
      [{ filename, contentType: "application/pdf", content: pdf.bytes }],
    );
    await deps.receipts.markEmailed(id);
    return "done";
  };

  const handle = (job: EmailJob): Promise<JobOutcome> => {
    switch (job.type) {
      case "payment_receipt":
        return job.kind === "order"
          ? receiptOfOrder(job, job.id)
          : job.kind === "campaign"
            ? receiptOfCampaign(job, job.id)
            : receiptOfFlowerLetter(job, job.id);
      case "status":
        return statusOf(job, job.order_id, job.status);
      case "return_receipt":
        return returnReceiptOf(job, job.order_id);
    }
  };

  return {
    async paid(kind, record) {
      await enqueueEmail(deps.jobs, { type: "payment_receipt", kind, id: record.id }, now());
    },
    async noteOrder(order) {
      if (order.project) {
        // A Projects API order's receipt is queued after its first round; its statuses go out as webhooks. Once the
        // order's steps say the receipt went out, nothing is read again in later rounds.
        if (order.steps.some((s) => s.step === "email_sent")) return;
        const notes = await deps.store.get<EmailNotes>(notesKey(order.id));
        if (notes?.value.receipt) return;
        await enqueueEmail(deps.jobs, { type: "payment_receipt", kind: "order", id: order.id }, now());
        await deps.store.put<EmailNotes>(notesKey(order.id), { statuses: [], receipt: true });
        return;
      }
      if (!buyerOf(order) || !order.lifecycle) return;
      const reached = order.lifecycle.timeline
        .map((event) => event.status_after)
        .filter((status): status is MailedStatus => status in STATUS_MAILS);
      if (reached.length === 0) return;
      const found = await deps.store.get<EmailNotes>(notesKey(order.id));
      const fresh = [...new Set(reached)].filter((status) => !found?.value.statuses.includes(status));
      if (fresh.length === 0) return;
      // Queued before they are noted: a crash in between queues them again, which the job keys make harmless.
      for (const status of fresh) {
        await enqueueEmail(deps.jobs, { type: "status", order_id: order.id, status }, now());
      }
      const statuses = [...(found?.value.statuses ?? []), ...fresh];
      await deps.store.put<EmailNotes>(notesKey(order.id), { statuses });
    },
    async returnReceiptStored(orderId) {
      await enqueueEmail(deps.jobs, { type: "return_receipt", order_id: orderId }, now());
    },
    work: {
      queue: EMAIL_QUEUE,
      async handle(job) {
        try {
          return await handle(job);
        } catch (error) {
          // A mail server that is down (or refuses for now) is tried again with the queue's backoff.
          if (!EmailError.isInstance(error) || isRetryableEmailError(error)) throw error;
          // A permanent refusal is not retried: the receipt says its email failed, anything else is given up.
          if (job.type === "return_receipt") {
            await deps.receipts
              .markEmailFailed(job.order_id, `The mail server refused the message (${error.code}).`)
              .catch(() => undefined);
          }
          deps.onGivenUp?.(job, error);
          return "done";
        }
      },
    },
  };
}
