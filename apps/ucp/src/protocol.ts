/** The UCP version this business speaks, and the names it uses. */
export const UCP_VERSION = "2026-01-11";
export const SHOPPING_SERVICE = "dev.ucp.shopping";
export const CHECKOUT_CAPABILITY = "dev.ucp.shopping.checkout";
/** The checkout member that carries the mail order (the PDF, the parties and the mail options). */
export const MAILPIECE_MEMBER = "svc.mailpiece";
/** The one item this business sells through UCP: one mailed PDF, priced by its quote. */
export const MAILPIECE_ITEM_ID = "mailpiece";
/** The payment handler for shared payment tokens, by its id in this business's profile. */
export const SPT_HANDLER_ID = "shared_payment_token";
export const SPT_HANDLER_NAME = "com.stripe.shared_payment_token";
/** The five tools of the checkout capability's MCP binding. */
export const UCP_TOOLS = [
  "create_checkout",
  "get_checkout",
  "update_checkout",
  "complete_checkout",
  "cancel_checkout",
] as const;

/** `{base_url}/...` without a doubled slash. */
export const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;
