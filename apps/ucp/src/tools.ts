import type { TSchema } from "typebox";
import type { CheckoutState, UcpCheckouts } from "./checkouts.ts";
import { MAILPIECE_ITEM_ID, MAILPIECE_MEMBER, SPT_HANDLER_ID } from "./protocol.ts";
import {
  CancelCheckoutInput,
  CompleteCheckoutInput,
  CreateCheckoutInput,
  GetCheckoutInput,
  UpdateCheckoutInput,
} from "./schemas.ts";

/** One tool of the checkout capability's MCP binding. */
export interface UcpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: TSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  run(checkouts: UcpCheckouts, args: Record<string, unknown>, clientKey: string): Promise<CheckoutState>;
}

const PROFILE =
  "Every call carries the platform's profile URL in the request's _meta.ucp.profile; the answer is the checkout object of UCP 2026-01-11, refusals are JSON-RPC errors whose data is {status: \"error\", errors: [{code, message, severity, path}]}.";

export const UCP_TOOL_LIST: readonly UcpTool[] = [
  {
    name: "create_checkout",
    title: "Create a checkout for a mailed PDF",
    description: `Creates a checkout for one mailed PDF: line_items [{item: {id: "${MAILPIECE_ITEM_ID}"}, quantity: 1}], the mail order in "${MAILPIECE_MEMBER}" ({pdf: {upload_token} or a data:application/pdf;base64 URL, sender_name, sender_address_id and sender_address_text, recipient_name, recipient_address_id and recipient_address_text from svc.search_addresses at /mcp (type Address), and mail options such as mail_class, color, certified}), and optionally the buyer {first_name, last_name, email}. The mail order is validated and priced as a machine order; the answer carries the price in cents, the status (incomplete until the buyer is known, then ready_for_complete) and continue_url, the hosted page where a person can review and pay instead. Manual addresses, letter text and forms are refused. An optional idempotency_key makes a retry return the same checkout. ${PROFILE}`,
    inputSchema: CreateCheckoutInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (checkouts, args, clientKey) => checkouts.create(args, clientKey),
  },
  {
    name: "get_checkout",
    title: "Get a checkout",
    description: `The current state of a checkout by its id: status, price, messages (a declined payment, 3-D Secure needed) and, once paid, the order. ${PROFILE}`,
    inputSchema: GetCheckoutInput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (checkouts, args) => checkouts.get(args.id),
  },
  {
    name: "update_checkout",
    title: "Update a checkout",
    description: `Changes a checkout by its id: the buyer, and the mail order in "${MAILPIECE_MEMBER}" (given whole), which is validated and priced again; the checkout id stays and its old price and continue_url stop working. A checkout whose payment is in progress or done is not changed (the answer says so). ${PROFILE}`,
    inputSchema: UpdateCheckoutInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (checkouts, args, clientKey) => checkouts.update(args, clientKey),
  },
  {
    name: "complete_checkout",
    title: "Pay a checkout and place the order",
    description: `Pays a checkout with a shared payment token and places the mail order: payment {instruments: [{id, handler_id: "${SPT_HANDLER_ID}", type: "card", credential: {type: "shared_payment_token", token: "spt_..."}}]} (the selected one when there are several). Needs the buyer's first_name and email (give them at create or update) and an idempotency_key (UUID): a retry with the same key and arguments returns the same result and never charges twice. A declined payment answers the checkout with a payment_declined message (use another payment method and a new key); one that needs 3-D Secure answers requires_escalation: send the buyer to continue_url. The completed checkout carries the order {id, permalink_url}. ${PROFILE}`,
    inputSchema: CompleteCheckoutInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: (checkouts, args) => checkouts.complete(args),
  },
  {
    name: "cancel_checkout",
    title: "Cancel a checkout",
    description: `Cancels a checkout that is not paid, with an idempotency_key (UUID); its continue_url stops working. A paid checkout cannot be canceled. ${PROFILE}`,
    inputSchema: CancelCheckoutInput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (checkouts, args) => checkouts.cancel(args),
  },
];
