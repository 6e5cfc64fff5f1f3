import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import {
  EMAIL_SENDER_CONTRACT_NAMES,
  type EmailSenderContractName,
  type EmailSenderContractOptions,
  emailSenderContract,
} from "./email-sender-contract.ts";
import { type ReferenceEmailFault, referenceEmailSubject } from "./reference-email-sender.fixture.ts";

async function failuresWith(
  faults: ReferenceEmailFault[],
  options?: EmailSenderContractOptions,
): Promise<Map<string, string>> {
  const set = new Set(faults);
  const report = await runSuite(
    emailSenderContract(async ({ clock }) => referenceEmailSubject(clock, set), options),
  );
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

const N = EMAIL_SENDER_CONTRACT_NAMES;

describe("emailSenderContract", () => {
  it("has one test per name, in the order of EMAIL_SENDER_CONTRACT_NAMES", () => {
    const suite = emailSenderContract(async ({ clock }) => referenceEmailSubject(clock), {
      name: "reference",
    });
    expect(suite.tests.map((t) => t.name)).toEqual([...N]);
    expect(new Set(N).size).toBe(N.length);
    expect(suite.name).toBe("email sender contract (reference)");
  });

  it("passes a correct sender", async () => {
    expect(await failuresWith([])).toEqual(new Map());
  });

  it("leaves out the tests named in disable, and refuses unknown names", () => {
    const disable: EmailSenderContractName[] = [N[16], N[17]];
    const suite = emailSenderContract(async ({ clock }) => referenceEmailSubject(clock), { disable });
    expect(suite.tests.map((t) => t.name)).toEqual(N.filter((name) => !disable.includes(name)));
    expect(() =>
      emailSenderContract(async ({ clock }) => referenceEmailSubject(clock), {
        disable: ["no such test" as EmailSenderContractName],
      }),
    ).toThrow(/unknown test/);
  });

  it("fails a fault test whose fault the subject does not give, saying how to disable it", async () => {
    const report = await runSuite(
      emailSenderContract(async ({ clock }) => {
        const subject = referenceEmailSubject(clock);
        return { ...subject, faults: { restore: async () => {} } };
      }),
    );
    const failed = report.outcomes.filter((o) => o.status === "failed").map((o) => o.name);
    expect(failed).toEqual([N[14], N[15], N[16], N[17]]);
    expect(report.outcomes.find((o) => o.name === N[14])?.reason).toMatch(/faults\.down.*disable/);
  });

  it("runs the durability test of a durable sender, and answers not applicable for one that declares durable: false", async () => {
    const durable = await runSuite(
      emailSenderContract(async ({ clock }) => referenceEmailSubject(clock), { name: "durable" }),
    );
    expect(durable.outcomes.find((o) => o.name === N[7])?.status).toBe("passed");
    const report = await runSuite(
      emailSenderContract(async ({ clock }) => {
        const { restart: _restart, ...subject } = referenceEmailSubject(clock);
        return {
          ...subject,
          sender: { ...subject.sender, capabilities: { durable: false, delivers: true } },
        };
      }),
    );
    expect(report.failed).toBe(0);
    expect(
      report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]),
    ).toEqual([[N[7], "the sender declares durable: false"]]);
  });

  it("fails a durable sender that gives no restart", async () => {
    const report = await runSuite(
      emailSenderContract(async ({ clock }) => {
        const { restart: _restart, ...subject } = referenceEmailSubject(clock);
        return subject;
      }),
    );
    expect(report.outcomes.filter((o) => o.status === "failed").map((o) => o.name)).toEqual([N[7]]);
  });

  const caught: Array<[ReferenceEmailFault, EmailSenderContractName]> = [
    ["capabilities change", N[0]],
    ["wall clock", N[1]],
    ["accepts nobody", N[1]],
    ["drops reply-to", N[2]],
    ["alters attachments", N[2]],
    ["drops custom headers", N[2]],
    ["message id from content", N[3]],
    ["sends duplicates", N[4]],
    ["replays as new", N[4]],
    ["racy", N[5]],
    ["ignores conflicts", N[6]],
    ["forgets on restart", N[7]],
    ["accepts bad addresses", N[8]],
    ["allows control characters", N[9]],
    ["allows empty parts", N[10]],
    ["no attachment checks", N[11]],
    ["allows any header", N[12]],
    ["claims key on refusal", N[13]],
    ["keeps key after failure", N[14]],
    ["down is rejected", N[14]],
    ["keeps key after failure", N[15]],
    ["temporary is rejected", N[15]],
    ["permanent is unavailable", N[16]],
    ["auth is unavailable", N[17]],
    ["leaks secret", N[17]],
    ["leaks secret", N[18]],
  ];
  for (const [fault, test] of caught) {
    it(`catches a sender with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every contract test with a fault", () => {
    expect(new Set(caught.map(([, test]) => test))).toEqual(new Set(N));
  });
});
