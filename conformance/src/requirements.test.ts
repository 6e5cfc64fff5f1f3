import { describe, expect, it } from "vitest";
import { addressProviderContract } from "./address/address-provider-contract.ts";
import { checkoutPaymentsContract } from "./checkout/checkout-payments-contract.ts";
import { emailSenderContract } from "./email/email-sender-contract.ts";
import { floristProviderContract } from "./florist/florist-provider-contract.ts";
import type { Suite } from "./kit.ts";
import type { HttpTarget } from "./machine/http-target.ts";
import { machineSuite } from "./machine/machine-suite.ts";
import { mcpSuite } from "./mcp/mcp-suite.ts";
import { paymentRailContract } from "./payment/payment-rail-contract.ts";
import { printProviderContract } from "./print/print-provider-contract.ts";
import { jobQueueContract } from "./queue/job-queue-contract.ts";
import { blobStoreContract } from "./store/blob-store-contract.ts";
import { storeContract } from "./store/store-contract.ts";
import { ucpSuite } from "./ucp/ucp-suite.ts";
import { v1Suite } from "./v1/v1-suite.ts";

/** Building a suite sends nothing: a target that fails every request proves it. */
const nowhere: HttpTarget = {
  label: "nowhere",
  fetch: async () => {
    throw new Error("a suite sent a request while it was built");
  },
};
const never = async (): Promise<never> => {
  throw new Error("a kit made its subject while it was built");
};

const httpSuites: Suite[] = [
  machineSuite(nowhere),
  mcpSuite(nowhere),
  ucpSuite(nowhere),
  v1Suite(nowhere, { apiKey: "svc_test_unused", adminToken: "unused" }),
];

const kits: Suite[] = [
  storeContract({ create: never }),
  blobStoreContract({ create: never }),
  jobQueueContract({ create: never }),
  paymentRailContract({ name: "any", create: never }),
  checkoutPaymentsContract({ name: "any", create: never }),
  printProviderContract({ create: never }),
  floristProviderContract({ create: never }),
  addressProviderContract({ create: never, knownQuery: "350 Fifth Avenue", containerQuery: "Fifth Avenue" }),
  emailSenderContract(never),
];

function expectRequirements(suite: Suite, spec?: RegExp): void {
  const missing = suite.tests.filter(
    (test) =>
      !test.requirement ||
      [test.requirement.spec, test.requirement.section, test.requirement.sentence].some(
        (part) => typeof part !== "string" || part.trim() === "",
      ),
  );
  expect(
    missing.map((test) => test.name),
    `${suite.name}: tests without a requirement`,
  ).toEqual([]);
  if (spec) {
    for (const test of suite.tests) expect(test.requirement?.spec, test.name).toMatch(spec);
  }
  expect(new Set(suite.tests.map((test) => test.name)).size, `${suite.name}: test names are unique`).toBe(
    suite.tests.length,
  );
}

describe("every test names the requirement it checks", () => {
  for (const suite of httpSuites) {
    it(`HTTP suite: ${suite.name}`, () => {
      expect(suite.tests.length).toBeGreaterThan(0);
      expectRequirements(suite);
    });
  }

  it("the machine suite names spec 1 (or the documents it builds on) for every test", () => {
    const machine = httpSuites[0] as Suite;
    const specs = new Set(machine.tests.map((test) => test.requirement?.spec));
    expect(specs.has("spec 1 (machine API)")).toBe(true);
    const fromSpec1 = machine.tests.filter((test) => test.requirement?.spec === "spec 1 (machine API)");
    expect(fromSpec1.length).toBeGreaterThan(machine.tests.length / 2);
  });

  for (const kit of kits) {
    it(`port kit: ${kit.name}`, () => {
      expect(kit.tests.length).toBeGreaterThan(0);
      expectRequirements(kit, /^port [A-Z][A-Za-z]+$/);
    });
  }
});
