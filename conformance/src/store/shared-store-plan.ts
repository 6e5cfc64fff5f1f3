/**
 * What the shared-store test asks of each process. Every process runs the same phases at the same time; the suite
 * starts a phase only once every process has finished the one before, so the operations of one phase meet on the
 * same keys.
 */
import type { PortOpening } from "../processes/protocol.ts";

/** How another process opens a store: a module exporting `(options) => Store | Promise<Store>`. */
export type StoreOpening = PortOpening;

/** How many processes open the store besides the suite's own. */
export const SHARED_PROCESSES = 3;

/** Operations per process and phase: a few hundred in all. */
export const SHARED_PLAN = Object.freeze({
  /** Keys every process creates at once: exactly one creator each. */
  claims: 10,
  /** Unconditional puts of one key per process: every version exactly once. */
  puts: 10,
  /** Compare-and-set increments of one counter per process: none lost. */
  increments: 10,
  /** Keys every process deletes at once, plainly and with `ifVersion`: exactly one deleter each. */
  deletes: 6,
  /** Keys each process creates for itself, for `list` to find from every process. */
  own: 5,
});

export const SHARED_PHASES = ["claims", "puts", "increments", "deletes", "reads"] as const;
export type SharedPhase = (typeof SHARED_PHASES)[number];

export const sharedKeys = {
  claim: (i: number) => `shared:claim:${i}`,
  put: "shared:put",
  counter: "shared:counter",
  deleted: (i: number) => `shared:delete:${i}`,
  casDeleted: (i: number) => `shared:cas-delete:${i}`,
  ownPrefix: "shared:own:",
  own: (worker: number, j: number) => `shared:own:${worker}:${j}`,
} as const;

export interface ClaimsResult {
  claims: Array<{ i: number; created: boolean; version: number; value: unknown }>;
}
export interface PutsResult {
  puts: Array<{ version: number; value: unknown }>;
}
export interface IncrementsResult {
  /** The version each successful compare-and-set wrote. */
  versions: number[];
  conflicts: number;
}
export interface DeletesResult {
  plain: boolean[];
  conditional: Array<"deleted" | "version_conflict">;
}
export interface ReadsResult {
  /** The value of each claim key as this process reads it. */
  claims: unknown[];
  /** Every key listed under the own-key prefix, following cursors. */
  own: string[];
}

export interface SharedResults {
  claims: ClaimsResult;
  puts: PutsResult;
  increments: IncrementsResult;
  deletes: DeletesResult;
  reads: ReadsResult;
}
