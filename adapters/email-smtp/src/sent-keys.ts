import { type Clock, EmailError, PortError, type SendResult, type Store } from "@mailpiece/ports";

/** What the Store holds for one idempotency key. */
export type SentKeyRecord =
  | {
      state: "sending";
      fingerprint: string;
      message_id: string;
      /** When the send began, on the sender's clock (milliseconds since the epoch). */
      started_at: number;
    }
  | { state: "sent"; fingerprint: string; result: Omit<SendResult, "duplicate"> };

/** The outcome of claiming a key: send now (with this Message-ID), or answer the first send. */
export type Claim =
  | { kind: "send"; message_id: string; version: number; resend: boolean }
  | { kind: "sent"; result: Omit<SendResult, "duplicate"> };

export interface SentKeysOptions {
  store: Store;
  clock: Clock;
  /** Store keys are `<prefix>:<idempotency key>`. */
  prefix: string;
  /** How long a claim in the sending state holds before a later send may take it over. */
  leaseMs: number;
  /** How long a key stays used (the record's time to live). */
  retainMs: number;
}

function storeFailure(error: unknown, what: string): EmailError {
  const detail = PortError.isInstance(error) ? `${error.code}: ${error.message}` : "the store failed";
  return new EmailError(
    "unavailable",
    `the record of sent keys could not be ${what} (${detail}); nothing was sent`,
  );
}

/**
 * The record of sent keys, on a Store: a send claims its key with `create` before anything goes out, and records
 * its result after. A claim left in the sending state (a crash, a lost connection after the message was handed
 * over) holds for `leaseMs`; after that, a send under the key takes it over and sends again with the same
 * Message-ID.
 */
export function sentKeys(options: SentKeysOptions) {
  const { store, clock, prefix, leaseMs, retainMs } = options;
  const storeKey = (key: string) => `${prefix}:${key}`;

  return {
    /** Claims `key` for a message with this fingerprint, or answers what holds it. */
    async claim(key: string, fingerprint: string, message_id: string): Promise<Claim> {
      const now = clock.now();
      const fresh: SentKeyRecord = { state: "sending", fingerprint, message_id, started_at: now };
      let outcome: Awaited<ReturnType<Store["create"]>>;
      try {
        outcome = await store.create<SentKeyRecord>(storeKey(key), fresh, { ttlMs: retainMs });
      } catch (error) {
        throw storeFailure(error, "read");
      }
      if (outcome.created)
        return { kind: "send", message_id, version: outcome.record.version, resend: false };
      const held = outcome.record.value as SentKeyRecord;
      if (held.fingerprint !== fingerprint) {
        throw new EmailError("key_conflict", `the key ${key} was used for another message; nothing was sent`);
      }
      if (held.state === "sent") return { kind: "sent", result: held.result };
      const free = held.started_at + leaseMs;
      if (now < free) {
        throw new EmailError(
          "unavailable",
          `a send under the key ${key} began at ${new Date(held.started_at).toISOString()} and its outcome is not known yet; try again after ${new Date(free).toISOString()}`,
        );
      }
      try {
        const taken = await store.put<SentKeyRecord>(
          storeKey(key),
          { ...fresh, message_id: held.message_id },
          { ifVersion: outcome.record.version, ttlMs: retainMs },
        );
        return { kind: "send", message_id: held.message_id, version: taken.version, resend: true };
      } catch (error) {
        if (PortError.isInstance(error) && error.code === "version_conflict") {
          throw new EmailError("unavailable", `another send took over the key ${key}; try again later`);
        }
        throw storeFailure(error, "written");
      }
    },

    /**
     * Records the result of a send that went out. A failure to record is not thrown: the message has gone, and the
     * claim, still in the sending state, keeps the key used until its lease passes.
     */
    async complete(key: string, version: number, fingerprint: string, result: Omit<SendResult, "duplicate">) {
      const sent: SentKeyRecord = { state: "sent", fingerprint, result };
      await store.put(storeKey(key), sent, { ifVersion: version, ttlMs: retainMs }).catch(() => undefined);
    },

    /** Frees a key whose send certainly sent nothing. A failure leaves the claim to its lease. */
    async release(key: string, version: number) {
      await store.delete(storeKey(key), { ifVersion: version }).catch(() => undefined);
    },
  };
}
