import { createHash, createPublicKey, type JsonWebKey, webcrypto } from "node:crypto";
import type { Store } from "@mailpiece/ports";
import {
  CHECKOUT_CAPABILITY,
  joinUrl,
  SHOPPING_SERVICE,
  SPT_HANDLER_ID,
  SPT_HANDLER_NAME,
  UCP_VERSION,
} from "./protocol.ts";

/** The public half of the business's signing key, as its profile lists it. */
export interface SigningJwk {
  kid: string;
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  use: "sig";
  alg: "ES256";
}

/** A payment handler of the profile (UCP 2026-01-11 shape). */
export interface PaymentHandler {
  id: string;
  name: string;
  version: string;
  spec: string;
  config_schema: string;
  instrument_schemas: string[];
  config: Record<string, unknown>;
}

const SIGNING_KEY_RECORD = "ucp:signing_key";

/**
 * The business's signing key: the configured private JWK, or one made once per deployment and kept in the store
 * (concurrent processes agree on one: the store's create is atomic). Only the public half leaves this function.
 */
export async function loadSigningKey(store: Store, configured?: JsonWebKey): Promise<SigningJwk> {
  let privateJwk = configured;
  if (!privateJwk) {
    const pair = (await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const made = (await webcrypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
    const kept = await store.create<{ jwk: JsonWebKey; created_at: number }>(SIGNING_KEY_RECORD, {
      jwk: made,
      created_at: Date.now(),
    });
    privateJwk = kept.record.value.jwk;
  }
  const publicJwk = createPublicKey({ key: privateJwk, format: "jwk" }).export({ format: "jwk" });
  if (publicJwk.kty !== "EC" || publicJwk.crv !== "P-256" || !publicJwk.x || !publicJwk.y) {
    throw new Error("the UCP signing key must be an EC P-256 key");
  }
  return {
    kid: thumbprint(publicJwk.x, publicJwk.y),
    kty: "EC",
    crv: "P-256",
    x: publicJwk.x,
    y: publicJwk.y,
    use: "sig",
    alg: "ES256",
  };
}

/** The JWK thumbprint (RFC 7638) of a P-256 public key, base64url: a key id that names the key itself. */
function thumbprint(x: string, y: string): string {
  return createHash("sha256")
    .update(JSON.stringify({ crv: "P-256", kty: "EC", x, y }))
    .digest("base64url");
}

/** The handler for shared payment tokens (spt_...), with the schemas this deployment serves for it. */
export function sharedPaymentTokenHandler(publicUrl: string, simulated: boolean): PaymentHandler {
  return {
    id: SPT_HANDLER_ID,
    name: SPT_HANDLER_NAME,
    version: UCP_VERSION,
    spec: "https://docs.stripe.com/agentic-commerce/concepts/shared-payment-tokens",
    config_schema: joinUrl(publicUrl, "/ucp/schemas/shared-payment-token-config.json"),
    instrument_schemas: [joinUrl(publicUrl, "/ucp/schemas/shared-payment-token-instrument.json")],
    // Simulated payments take the test tokens spt_test_ok, spt_test_declined and spt_test_3ds.
    config: { currency: "USD", simulated },
  };
}

/** The business profile at /.well-known/ucp (UCP 2026-01-11), generated from the deployment's configuration. */
export function businessProfile(
  publicUrl: string,
  options: { handlers: PaymentHandler[]; signingKeys: SigningJwk[] },
): Record<string, unknown> {
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        [SHOPPING_SERVICE]: {
          version: UCP_VERSION,
          spec: "https://ucp.dev/specification/overview",
          mcp: {
            schema: "https://ucp.dev/services/shopping/mcp.openrpc.json",
            endpoint: joinUrl(publicUrl, "/ucp/mcp"),
          },
        },
      },
      capabilities: [
        {
          name: CHECKOUT_CAPABILITY,
          version: UCP_VERSION,
          spec: "https://ucp.dev/specification/checkout",
          schema: "https://ucp.dev/schemas/shopping/checkout.json",
        },
      ],
    },
    payment: { handlers: options.handlers },
    signing_keys: options.signingKeys,
  };
}
