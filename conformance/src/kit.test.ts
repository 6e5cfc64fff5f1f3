import { FloristError, PortError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { ConformanceError } from "./conformance-error.ts";
import { formatReport, kitTests, notApplicable, type Requirement, runSuite, type Suite } from "./kit.ts";
import { appTarget } from "./machine/http-target.ts";
import { noSecretAssertion, refusalAssertion } from "./refused-with.ts";
import { recordingTarget } from "./report/request-log.ts";
import { runExpecting } from "./vitest.ts";

const requirement: Requirement = {
  spec: "spec 1 (machine API)",
  section: "Errors",
  sentence: "404 | Unknown id.",
};

/** An app that answers 404 for /missing, 500 for /broken and 200 for the rest. */
const app = {
  fetch: (request: Request) => {
    const path = new URL(request.url).pathname;
    return new Response("{}", { status: path === "/missing" ? 404 : path === "/broken" ? 500 : 200 });
  },
};

describe("runSuite", () => {
  it("reports passed, failed and not applicable tests, with the reason, requirement and last requests", async () => {
    const target = recordingTarget(appTarget(app));
    const suite: Suite = {
      name: "example",
      sideEffects: "reads only",
      tests: [
        { name: "passes", requirement, run: async () => void (await target.fetch("/ok")) },
        {
          name: "fails",
          requirement,
          run: async () => {
            for (const path of ["/ok", "/a", "/b", "/broken?token=s3cret&page=2"]) await target.fetch(path);
            throw new Error("expected 200, got 500");
          },
        },
        { name: "does not apply", run: async () => notApplicable("no florist here") },
        {
          name: "fails without a request",
          run: async () => {
            throw "a plain string";
          },
        },
      ],
    };
    const report = await runSuite(suite);
    expect(report).toMatchObject({
      suite: "example",
      sideEffects: "reads only",
      passed: 1,
      failed: 2,
      notApplicable: 1,
    });
    const [passed, failed, na, bare] = report.outcomes;
    expect(passed).toMatchObject({ name: "passes", status: "passed", requirement });
    expect(passed?.reason).toBeUndefined();
    expect(passed?.requests).toBeUndefined();
    expect(failed).toMatchObject({ status: "failed", reason: "expected 200, got 500", requirement });
    // The last three requests, oldest first, with the secret query value hidden.
    expect(failed?.requests).toEqual([
      { method: "GET", path: "/a", status: 200 },
      { method: "GET", path: "/b", status: 200 },
      { method: "GET", path: "/broken?token=REDACTED&page=2", status: 500 },
    ]);
    expect(na).toMatchObject({ status: "not_applicable", reason: "no florist here" });
    expect(bare).toMatchObject({ status: "failed", reason: "a plain string" });
    expect(bare?.requests).toBeUndefined();

    const text = formatReport([report], ["Mailpiece conformance report for test"]);
    const lines = text.split("\n");
    expect(lines[0]).toBe("Mailpiece conformance report for test");
    expect(lines).toContain("  side effects: reads only");
    expect(text).toMatch(/^ {2}✓ passes \(\d+ ms\)$/m);
    expect(text).toMatch(/^ {2}✗ fails \(\d+ ms\)$/m);
    expect(text).toContain('      requirement: spec 1 (machine API) › Errors: "404 | Unknown id."');
    expect(text).toContain("      request: GET /broken?token=REDACTED&page=2 → 500");
    expect(text).toMatch(/^ {2}– does not apply \(\d+ ms\) — not applicable: no florist here$/m);
    expect(text).not.toContain("s3cret");
    expect(lines.slice(-2)).toEqual(["1 passed, 2 failed", "1 not applicable"]);
  });

  it("a request that got no answer is reported with why", async () => {
    const target = recordingTarget({
      label: "down",
      fetch: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:9");
      },
    });
    const report = await runSuite({
      name: "down",
      tests: [{ name: "t", run: async () => void (await target.fetch("/health", { method: "post" })) }],
    });
    expect(report.outcomes[0]?.requests).toEqual([
      { method: "POST", path: "/health", error: "connect ECONNREFUSED 127.0.0.1:9" },
    ]);
    expect(formatReport([report])).toContain(
      "request: POST /health → no answer: connect ECONNREFUSED 127.0.0.1:9",
    );
  });
});

describe("kitTests", () => {
  const names = ["a", "b", "c"] as const;
  const run = async () => {};
  const tests = { a: run, b: run, c: run };
  const requirements = {
    a: { spec: "port X", section: "s", sentence: "A MUST" },
    b: { spec: "port X", section: "s", sentence: "B MUST" },
    c: { spec: "port X", section: "s", sentence: "C MUST" },
  };

  it("keeps the order of the names, gives each its requirement and leaves out the disabled ones", () => {
    const selected = kitTests(names, tests, requirements, ["b"]);
    expect(selected.map((t) => [t.name, t.requirement?.sentence])).toEqual([
      ["a", "A MUST"],
      ["c", "C MUST"],
    ]);
  });

  it("refuses a disable list that names a test the kit does not have, naming it", () => {
    const wrong = ["c", "nope"] as unknown as readonly ("a" | "b" | "c")[];
    let caught: unknown;
    try {
      kitTests(names, tests, requirements, wrong);
    } catch (error) {
      caught = error;
    }
    expect(ConformanceError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: "unknown_test",
      issues: [{ path: "disable.1", code: "unknown_test" }],
    });
    expect((caught as Error).message).toContain('"nope"');
  });
});

describe("runExpecting (registerSuite's check of one test)", () => {
  const applies = { name: "applies", run: async () => {} };
  const doesNot = { name: "does not", run: async () => notApplicable("no receipts") };

  it("fails a test that answers not applicable unless it is listed, with its reason", async () => {
    await expect(runExpecting(doesNot, false)).rejects.toThrow("not applicable: no receipts");
    await expect(runExpecting(doesNot, true)).resolves.toBeUndefined();
  });

  it("fails a listed test that applies after all, and passes an applicable one that is not listed", async () => {
    await expect(runExpecting(applies, true)).rejects.toThrow(/listed in notApplicable/);
    await expect(runExpecting(applies, false)).resolves.toBeUndefined();
  });

  it("lets a failure through", async () => {
    const failing = {
      name: "fails",
      run: async () => {
        throw new Error("boom");
      },
    };
    await expect(runExpecting(failing, false)).rejects.toThrow("boom");
  });
});

describe('refusalAssertion (the kits\' "refused with this code" check)', () => {
  const rejectsWithCode = refusalAssertion(PortError);
  const floristRefusedWith = refusalAssertion(FloristError, {
    codes: ["invalid_request", "order_not_found"],
    saysWhy: true,
  });
  const refuse = (error: unknown) => () => Promise.reject(error);

  it("returns the error of the class and code, also for a synchronous throw", async () => {
    const error = new PortError("invalid_key", "bad key");
    await expect(rejectsWithCode(refuse(error), "invalid_key", "get")).resolves.toBe(error);
    const thrown = () => {
      throw error;
    };
    await expect(rejectsWithCode(thrown, "invalid_key", "get")).resolves.toBe(error);
    await expect(rejectsWithCode(refuse(error), ["version_conflict", "invalid_key"], "get")).resolves.toBe(
      error,
    );
  });

  it("fails another class, another code and a success, naming what was expected", async () => {
    await expect(rejectsWithCode(refuse(new Error("boom")), "invalid_key", "get")).rejects.toThrow(
      "get: expected a PortError with code invalid_key, got Error: boom",
    );
    await expect(
      rejectsWithCode(
        refuse(new PortError("version_conflict", "taken")),
        ["invalid_key", "blob_too_large"],
        "put",
      ),
    ).rejects.toThrow("put: expected code invalid_key or blob_too_large, got version_conflict (taken)");
    await expect(rejectsWithCode(async () => ({ ok: 1 }), "invalid_key", "get")).rejects.toThrow(
      'get: expected a PortError with code invalid_key, but it succeeded with {"ok":1}',
    );
  });

  it("checks what the kit asks besides the code: a code of the port, a message that says why, the field", async () => {
    const refused = (code: string, message: string, field?: string) =>
      refuse(new FloristError(code as "invalid_request", message, field === undefined ? {} : { field }));
    await expect(
      floristRefusedWith(refused("invalid_request", "bad date", "from"), "invalid_request", "dates", "from"),
    ).resolves.toBeInstanceOf(FloristError);
    await expect(
      floristRefusedWith(refused("invalid_request", "bad date", "to"), "invalid_request", "dates", "from"),
    ).rejects.toThrow("dates: the error names the field at fault: expected from, got to (bad date)");
    await expect(
      floristRefusedWith(refused("invalid_request", " "), "invalid_request", "dates"),
    ).rejects.toThrow("dates: the error says why");
    await expect(floristRefusedWith(refused("made_up", "no"), "invalid_request", "dates")).rejects.toThrow(
      "dates: made_up is a code of the port",
    );
  });
});

describe("noSecretAssertion", () => {
  const assertSafe = noSecretAssertion(PortError, {
    codes: ["version_conflict", "store_unavailable"],
    minLength: 6,
  });

  it("passes a well-formed error that carries none of the secrets, and leaves short ones out", () => {
    expect(() =>
      assertSafe(new PortError("version_conflict", "taken: abc"), ["s3cret-token", "abc", 42], "put"),
    ).not.toThrow();
  });

  it("fails an error that carries a secret anywhere, without showing it", () => {
    const hidden = new PortError("store_unavailable", "down", { cause: new Error("password=s3cret-token") });
    expect(() => assertSafe(hidden, ["other-secret", "s3cret-token"], "put")).toThrow(
      "put: the store_unavailable error carries secrets[1]",
    );
    let message = "";
    try {
      assertSafe(hidden, ["s3cret-token"], "put");
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("carries secrets[0]");
    expect(message).not.toContain("s3cret-token");
  });

  it("fails another class, a code outside the port and a message that does not say why", () => {
    expect(() => assertSafe(new Error("boom"), [], "put")).toThrow(
      "put: the failure is a PortError, got Error: boom",
    );
    expect(() => assertSafe(new PortError("blob_too_large", "too big"), [], "put")).toThrow(
      "put: blob_too_large is a code of the port",
    );
    expect(() => assertSafe(new PortError("version_conflict", ""), [], "put")).toThrow(
      "put: version_conflict says why",
    );
  });
});
