/**
 * CORS for the machine API, so browsers can pay: the payment request headers are allowed, and the payment
 * response headers are exposed on every answer, the 402 included.
 */
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt, Retry-After, Content-Type",
};

export const CORS_PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Content-Type, PAYMENT-SIGNATURE, Authorization, Idempotency-Key",
  "access-control-max-age": "600",
};

export function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}

export function preflight(): Response {
  return new Response(null, { status: 204, headers: CORS_PREFLIGHT_HEADERS });
}
