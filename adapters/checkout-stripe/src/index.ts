export type { StripeCheckoutOptions } from "./stripe-checkout.ts";
export { createStripeCheckout, STRIPE_SPT_API_VERSION } from "./stripe-checkout.ts";
export { checkoutErrorFromStripe, STRIPE_CHECKOUT_MESSAGES } from "./stripe-errors.ts";
