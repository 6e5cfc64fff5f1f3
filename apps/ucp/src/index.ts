export type { PaymentHandler, SigningJwk } from "./business-profile.ts";
export { businessProfile } from "./business-profile.ts";
export type { Severity, UcpErrorDetail } from "./errors.ts";
export type { PlatformProfile, ProfileResolver, UcpResponseMeta } from "./platform-profile.ts";
export { createProfileResolver, negotiate } from "./platform-profile.ts";
export {
  CHECKOUT_CAPABILITY,
  MAILPIECE_ITEM_ID,
  MAILPIECE_MEMBER,
  SPT_HANDLER_ID,
  UCP_TOOLS,
  UCP_VERSION,
} from "./protocol.ts";
export type { UcpAppOptions } from "./ucp-app.ts";
export { createUcpApp } from "./ucp-app.ts";
