import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock, JobQueue } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite, type SuiteReport, type TestOutcome } from "../kit.ts";
import {
  JOB_QUEUE_CONTRACT_NAMES,
  type JobQueueContractName,
  jobQueueContract,
} from "./job-queue-contract.ts";
import {
  emptyReferenceData,
  openSharedReferenceQueue,
  type ReferenceQueueData,
  type ReferenceQueueFault,
  referenceJobQueue,
  type SharedQueueFault,
} from "./reference-job-queue.fixture.ts";

const DURABLE: JobQueueContractName = "durable: pending, leased and dead jobs survive reopen";
const SHARED: JobQueueContractName =
  "shared: among several processes at once, one enqueue wins each key and each job is leased once";

/** The tests that answered not applicable, with their reasons. */
const notApplicableIn = (report: SuiteReport) =>
  report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);

async function failuresWith(faults: ReferenceQueueFault[]): Promise<Map<string, string>> {
  const set = new Set(faults);
  const report = await runSuite(
    jobQueueContract({ create: async ({ clock }) => referenceJobQueue(clock, set) }),
  );
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

describe("jobQueueContract", () => {
  it("has one test per name, in the order of JOB_QUEUE_CONTRACT_NAMES", () => {
    const suite = jobQueueContract({
      name: "reference",
      create: async ({ clock }) => referenceJobQueue(clock),
    });
    expect(suite.tests.map((t) => t.name)).toEqual([...JOB_QUEUE_CONTRACT_NAMES]);
    expect(new Set(JOB_QUEUE_CONTRACT_NAMES).size).toBe(JOB_QUEUE_CONTRACT_NAMES.length);
    expect(suite.name).toBe("job queue contract (reference)");
  });

  it("passes a correct queue", async () => {
    expect(await failuresWith([])).toEqual(new Map());
  });

  const caught: Array<[ReferenceQueueFault, JobQueueContractName]> = [
    ["no name check", "rejects invalid queue names, keys and payloads"],
    [
      "forgets leased keys",
      "enqueue is idempotent by queue and key while the job is pending, leased or dead",
    ],
    ["racy enqueue", "enqueue: exactly one of 20 concurrent enqueues of one key creates the job"],
    ["keeps completed keys", "a completed job's key is free: enqueue makes a new job"],
    ["moves later too", "enqueue with moveEarlier moves a pending job earlier, never later"],
    [
      "leases jobs not yet due",
      "lease returns only due jobs of its queue, at most limit, earliest runAt first",
    ],
    [
      "shares payloads",
      "a leased job carries its key, a copy of its payload, its runAt and its attempt number",
    ],
    ["racy lease", "leases are exclusive: concurrent leasers never receive one job while its lease holds"],
    ["no redelivery", "an expired lease is delivered again as the next attempt"],
    ["no lease check", "a stale lease holder's complete, fail and extend change nothing"],
    ["complete keeps the job", "complete removes the job"],
    ["ignores retryAt", "fail makes the job pending again at retryAt"],
    [
      "uncapped backoff",
      "fail without retryAt backs off: the base delay doubled per attempt, at most the cap",
    ],
    ["extend does nothing", "extend keeps the lease until now + ms"],
    [
      "reschedule keeps attempts",
      "reschedule makes the job pending again at runAt with no attempts counted, keeping its id and payload",
    ],
    [
      "never dead",
      "after maxAttempts the job is dead: never leased again, its key taken, listed by listDead",
    ],
    [
      "revive keeps attempts",
      "revive makes a dead job pending again; discard removes a job in any state and frees its key",
    ],
  ];
  for (const [fault, test] of caught) {
    it(`catches a queue with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every test but durability and sharing with a fault (those two are tested below)", () => {
    const covered = new Set<string>(caught.map(([, test]) => test));
    expect(JOB_QUEUE_CONTRACT_NAMES.filter((name) => !covered.has(name))).toEqual([DURABLE, SHARED]);
  });

  it("answers not applicable for durability and sharing, saying why, for a queue that declares neither", async () => {
    const reopens = [undefined, async (previous: JobQueue) => previous];
    for (const reopen of reopens) {
      const report = await runSuite(
        jobQueueContract({
          create: async ({ clock }) => referenceJobQueue(clock),
          ...(reopen ? { reopen } : {}),
        }),
      );
      expect(report.failed).toBe(0);
      expect(notApplicableIn(report)).toEqual([
        [DURABLE, "the queue declares durable: false"],
        [SHARED, "the queue declares shared: false"],
      ]);
    }
  });

  it("fails the durability test of a durable queue when reopen is missing, saying so", async () => {
    const report = await runSuite(
      jobQueueContract({
        create: async ({ clock }) =>
          referenceJobQueue(clock, new Set(), emptyReferenceData(), { durable: true, shared: false }),
      }),
    );
    const durable = report.outcomes.find((o) => o.name === DURABLE);
    expect(durable?.status).toBe("failed");
    expect(durable?.reason).toMatch(/pass reopen/);
  });

  it("checks durability through reopen: a queue that forgets fails, one that keeps its jobs passes", async () => {
    const run = async (keep: boolean) => {
      const opened = new WeakMap<JobQueue, { data: ReferenceQueueData; clock: Clock }>();
      const open = (clock: Clock, data: ReferenceQueueData): JobQueue => {
        const queue = referenceJobQueue(clock, new Set(), data, { durable: true, shared: false });
        opened.set(queue, { data, clock });
        return queue;
      };
      const report = await runSuite(
        jobQueueContract({
          create: async ({ clock }) => open(clock, emptyReferenceData()),
          reopen: async (previous) => {
            const was = opened.get(previous);
            if (!was) throw new Error("unknown queue");
            return open(was.clock, keep ? was.data : emptyReferenceData());
          },
        }),
      );
      return report.outcomes.find((o) => o.name === DURABLE);
    };
    expect((await run(true))?.status).toBe("passed");
    expect((await run(false))?.status).toBe("failed");
  });
});

describe("jobQueueContract: the shared test", () => {
  /** Runs the shared test alone on the file-shared reference queue, with `fault` in every process. */
  async function sharedOutcome(
    fault: SharedQueueFault | undefined,
    withOpening = true,
  ): Promise<TestOutcome> {
    const root = await mkdtemp(join(tmpdir(), "mailpiece-shared-queue-"));
    try {
      const dirs = new WeakMap<JobQueue, string>();
      let opened = 0;
      const suite = jobQueueContract({
        async create({ clock }) {
          const dir = join(root, `queue-${++opened}`);
          const queue = await openSharedReferenceQueue({ dir, clock, ...(fault ? { fault } : {}) });
          dirs.set(queue, dir);
          return queue;
        },
        ...(withOpening
          ? {
              sharedOpening: (queue: JobQueue) => ({
                module: new URL("./reference-job-queue.fixture.ts", import.meta.url).href,
                export: "openSharedReferenceQueue",
                options: { dir: dirs.get(queue), fault },
              }),
            }
          : {}),
      });
      const report = await runSuite({
        name: suite.name,
        tests: suite.tests.filter((t) => t.name === SHARED),
      });
      const [outcome] = report.outcomes;
      if (!outcome) throw new Error("the suite has no shared test");
      return outcome;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }

  it("passes a queue that several processes really share", async () => {
    const outcome = await sharedOutcome(undefined);
    expect(outcome.reason).toBeUndefined();
    expect(outcome.status).toBe("passed");
  }, 60_000);

  const faults: Array<[SharedQueueFault, RegExp]> = [
    ["process-local data", /exactly one creates the job/],
    ["in-process lock", /exactly one creates the job|leased by two processes|every process answers/],
  ];
  for (const [fault, message] of faults) {
    it(`catches a queue declared shared with the fault "${fault}"`, async () => {
      const outcome = await sharedOutcome(fault);
      expect(outcome.status).toBe("failed");
      expect(outcome.reason).toMatch(message);
    }, 60_000);
  }

  it("fails a queue that declares shared: true without sharedOpening, saying so", async () => {
    const outcome = await sharedOutcome(undefined, false);
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toMatch(/pass sharedOpening/);
  }, 60_000);
});
