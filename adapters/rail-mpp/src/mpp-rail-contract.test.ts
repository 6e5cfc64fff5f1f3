import { paymentRailContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { lazyPaymentRail, manualClock, type PaymentChallenge, type PaymentRail } from "@mailpiece/ports";
import { Mppx } from "mppx/client";
import { createMppRail } from "./mpp-rail.ts";
import { memoryTestLedger, type TestChargeLedger, testMethod, testMethodClient } from "./test-method.ts";

const SECRET = "contract-suite-secret-of-at-least-32-bytes";

/** The credential inside an `Authorization: Payment <b64url JSON>` header, changed and encoded again. */
function rewrite(
  headers: Headers,
  change: (credential: { challenge: Record<string, unknown>; payload: unknown }) => void,
): Headers {
  const value = headers.get("authorization") ?? "";
  const json = JSON.parse(Buffer.from(value.replace(/^Payment\s+/i, ""), "base64url").toString("utf8"));
  change(json);
  return new Headers({ authorization: `Payment ${Buffer.from(JSON.stringify(json)).toString("base64url")}` });
}

/** The kit over the rail as built, and over the same rail loaded on first use (as the server runs it). */
const wrappings: [string, (build: () => PaymentRail) => PaymentRail][] = [
  ["", (build) => build()],
  [
    ", loaded on first use",
    (build) =>
      lazyPaymentRail({ protocol: "mpp", simulated: true, credentialHeader: "authorization" }, async () =>
        build(),
      ),
  ],
];

for (const [variant, wrap] of wrappings)
  registerSuite(
    paymentRailContract({
      name: `MPP rail (test method, the mppx client)${variant}`,
      async create() {
        const clock = manualClock(Date.now());
        // The charges recorded by every rail of this configuration, as a store shared by processes would hold them.
        const shared = memoryTestLedger();
        let fault: "lose_answer" | "fail_before" | undefined;
        const ledger: TestChargeLedger = {
          read: (id) => shared.read(id),
          async record(id, receipt) {
            const injected = fault;
            fault = undefined;
            if (injected === "fail_before") throw new Error("connect ECONNREFUSED 127.0.0.1:9");
            const recorded = await shared.record(id, receipt);
            if (injected === "lose_answer") throw new Error("socket hang up after the charge");
            return recorded;
          },
        };
        const railOf = (methodLedger: TestChargeLedger) =>
          createMppRail({
            realm: "mail.example.test",
            secretKey: SECRET,
            methods: [testMethod({ clock, ledger: methodLedger })],
            clock,
          });
        const rail = wrap(() => railOf(ledger));
        const client = Mppx.create({
          methods: [testMethodClient({ token: "tok_test_visa" })],
          polyfill: false,
        });
        return {
          rail,
          async pay(challenge: PaymentChallenge) {
            const headers = new Headers();
            for (const [name, value] of Object.entries(challenge.headers)) {
              for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
            }
            const response = new Response(JSON.stringify(challenge.body), {
              status: challenge.status,
              headers,
            });
            return new Headers({ authorization: await client.createCredential(response) });
          },
          // Pays less than asked: the request inside the challenge no longer matches its HMAC binding.
          tamper: (headers) =>
            rewrite(headers, (c) => {
              const request = JSON.parse(
                Buffer.from(String(c.challenge.request), "base64url").toString("utf8"),
              );
              request.amount = "0.01";
              c.challenge.request = Buffer.from(JSON.stringify(request)).toString("base64url");
            }),
          // Keeps the terms but breaks the challenge id (the HMAC binding).
          forge: (headers) =>
            rewrite(headers, (c) => {
              const id = String(c.challenge.id);
              c.challenge.id = `${id.slice(0, -2)}${id.endsWith("AA") ? "BB" : "AA"}`;
            }),
          expire: () => clock.advance(10 * 60 * 1000),
          holdSettlement: () => {
            throw new Error("the MPP test method settles at once; it has no pending state");
          },
          another: () => wrap(() => railOf(shared)),
          faults: {
            loseAnswerAfterTransfer: () => {
              fault = "lose_answer";
            },
            failBeforeTransfer: () => {
              fault = "fail_before";
            },
          },
          normalizeChallenge: (challenge: PaymentChallenge) => {
            const strip = (value: string) =>
              value.replace(/id="[^"]*"/, 'id=""').replace(/expires="[^"]*"/, 'expires=""');
            const header = challenge.headers["WWW-Authenticate"];
            return {
              ...challenge,
              headers: {
                ...challenge.headers,
                "WWW-Authenticate": Array.isArray(header) ? header.map(strip) : strip(String(header)),
              },
              body: { ...(challenge.body as object), detail: "" },
            };
          },
        };
      },
      // The test method's settlement is final the moment it is verified: there is no pending state to report.
      disable: [
        "settle reports pending, never success, when the outcome is not final",
        "receipt headers exist for settled and pending settlements",
      ],
    }),
  );
