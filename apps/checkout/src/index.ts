export type { CheckoutAppOptions } from "./checkout-app.ts";
export { createCheckoutApp } from "./checkout-app.ts";
