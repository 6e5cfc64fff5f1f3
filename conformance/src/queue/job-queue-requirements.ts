import { portRequirement, type Requirement } from "../kit.ts";
import type { JobQueueContractName } from "./job-queue-contract.ts";

const port = (section: string, sentence: string) => portRequirement("JobQueue", section, sentence);

/** The MUST sentence of the JobQueue port (adapters/ports/src/job-queue.ts) that each test checks. */
export const JOB_QUEUE_REQUIREMENTS: Readonly<Record<JobQueueContractName, Requirement>> = {
  "rejects invalid queue names, keys and payloads": port(
    "Names and payloads",
    "every method MUST reject any other with `PortError` code `invalid_key` and change nothing. `enqueue` MUST reject a payload that is not JSON-serialisable with code `value_not_serializable` and change nothing.",
  ),
  "enqueue is idempotent by queue and key while the job is pending, leased or dead": port(
    "Enqueue",
    "`enqueue` MUST be idempotent by queue and key: while a job with that key is pending, leased or dead, it MUST change nothing and answer `created: false` with that job's id and state.",
  ),
  "enqueue: exactly one of 20 concurrent enqueues of one key creates the job": port(
    "Enqueue",
    "Under any number of concurrent `enqueue`s of one key, exactly one MUST answer `created: true`, every one the same id.",
  ),
  "a completed job's key is free: enqueue makes a new job": port(
    "Enqueue",
    "Once a job is complete (or discarded) its key MUST be free: `enqueue` makes a new job with a new id",
  ),
  "enqueue with moveEarlier moves a pending job earlier, never later": port(
    "Enqueue",
    "With `moveEarlier`, an `enqueue` whose key holds a pending job due later MUST move that job to the new `runAt`, keeping its id and payload. It MUST never move a job later, nor touch a leased or dead one.",
  ),
  "lease returns only due jobs of its queue, at most limit, earliest runAt first": port(
    "Leasing",
    "`lease` MUST return only jobs of its queue whose `runAt` is at or before now on the queue's clock, at most `limit`, the earliest `runAt` first",
  ),
  "a leased job carries its key, a copy of its payload, its runAt and its attempt number": port(
    "Leasing",
    "A leased job MUST carry its key, its payload as enqueued (a copy: changing it changes nothing stored), its `runAt` and its attempt number",
  ),
  "leases are exclusive: concurrent leasers never receive one job while its lease holds": port(
    "Leasing",
    "A leased job MUST NOT be returned by any `lease`, from any caller or process, until its lease expires.",
  ),
  "an expired lease is delivered again as the next attempt": port(
    "Leasing",
    "A job whose lease expires without `complete` or `fail` MUST be delivered again, as its next attempt.",
  ),
  "a stale lease holder's complete, fail and extend change nothing": port(
    "Lease holders",
    "`complete`, `fail`, `extend` and `reschedule` MUST act only for the job's current lease.",
  ),
  "complete removes the job": port("Lease holders", "`complete` MUST remove the job."),
  "fail makes the job pending again at retryAt": port(
    "Lease holders",
    "`fail` MUST make the job pending again at `retryAt` when given",
  ),
  "fail without retryAt backs off: the base delay doubled per attempt, at most the cap": port(
    "Lease holders",
    "else at now + `backoffDelay(attempts, retry)`: `retry.backoffBaseMs` doubled for each attempt after the first, at most `retry.backoffCapMs`, without jitter.",
  ),
  "extend keeps the lease until now + ms": port(
    "Lease holders",
    "`extend(job, ms)` MUST keep the lease until now + `ms`.",
  ),
  "reschedule makes the job pending again at runAt with no attempts counted, keeping its id and payload":
    port(
      "Lease holders",
      "`reschedule(job, { runAt })` MUST make the job pending again at `runAt` with no attempts counted, keeping its id, key and payload",
    ),
  "after maxAttempts the job is dead: never leased again, its key taken, listed by listDead": port(
    "Dead jobs",
    "When attempt number `retry.maxAttempts` fails, or its lease expires, the job MUST become dead: never leased again, its key still taken, listed by `listDead`.",
  ),
  "revive makes a dead job pending again; discard removes a job in any state and frees its key": port(
    "Dead jobs",
    "`revive` MUST make a dead job pending again with no attempts counted; `discard` MUST remove a job in any state and free its key.",
  ),
  "durable: pending, leased and dead jobs survive reopen": port(
    "Durability",
    "An adapter that declares `durable: true` MUST keep every acknowledged change across a restart (pending jobs, leases with their owner and expiry, dead jobs)",
  ),
  "shared: among several processes at once, one enqueue wins each key and each job is leased once": port(
    "Durability",
    "An adapter that declares `shared: true` MUST keep all of the above among several processes using it at once.",
  ),
};
