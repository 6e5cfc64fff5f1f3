import type { CorsOptions, Middleware } from "h3";
import { appendCorsHeaders, handleCors } from "h3";

/**
 * CORS for the machine API, so browsers can pay: any origin, the payment request headers allowed, and the payment
 * response headers exposed on every answer, the 402 included.
 */
export const CORS: CorsOptions = {
  origin: "*",
  methods: ["GET", "POST", "OPTIONS"],
  allowHeaders: ["Content-Type", "PAYMENT-SIGNATURE", "Authorization", "Idempotency-Key"],
  exposeHeaders: [
    "PAYMENT-REQUIRED",
    "PAYMENT-RESPONSE",
    "WWW-Authenticate",
    "Payment-Receipt",
    "Retry-After",
    "Allow",
    "Content-Type",
  ],
  maxAge: "600",
  preflight: { statusCode: 204 },
};

/**
 * Route middleware: a CORS preflight is answered here (204, naming the exposed headers too); every other answer,
 * errors included, carries the CORS headers.
 */
export const cors: Middleware = (event, next) => {
  const preflight = handleCors(event, CORS);
  if (preflight === false) return next();
  appendCorsHeaders(event, CORS);
  return preflight;
};
