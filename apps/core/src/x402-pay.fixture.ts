import type { PaymentChallenge } from "@mailpiece/ports";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** The x402 client agents run, with its spend cap raised, paying one 402 into a PAYMENT-SIGNATURE header. */
export async function x402Pay(challenge: PaymentChallenge): Promise<Headers> {
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  const required = JSON.parse(
    Buffer.from(challenge.headers["PAYMENT-REQUIRED"] as string, "base64").toString(),
  );
  const payload = await client.createPaymentPayload(required);
  return new Headers({ "payment-signature": Buffer.from(JSON.stringify(payload)).toString("base64") });
}
