import { createHmac, timingSafeEqual } from "node:crypto";
import { PortError, type Store } from "@mailpiece/ports";
import { RANDOM_TOKEN, randomToken, sha256Hex } from "./security.ts";

/** How long a dashboard session lasts from sign-in: 12 hours, then the operator signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Failed sign-ins one client IP may make per window before sign-in is refused for it until the window ends. */
export const SIGN_IN_LIMIT = { failures: 10, windowMs: 15 * 60 * 1000 } as const;

/** A dashboard session as the store keeps it: never the session id, never the admin token. */
interface SessionRecord {
  csrf: string;
  created_at: number;
  expires_at: number;
  /** HMAC-SHA256 of the session id keyed with the admin token: a new ADMIN_TOKEN ends every older session. */
  binding: string;
}

export interface Session {
  id: string;
  /** The per-session CSRF token every form of the session carries. */
  csrf: string;
  expires_at: number;
}

/**
 * Dashboard sessions in the core's store, under `admin_sessions:<sha256 of the id>` with a 12-hour TTL, so that
 * every process of a deployment sharing the store agrees on them. The id itself only lives in the cookie.
 */
export function createSessions(store: Store, now: () => number, adminToken: string) {
  const keyOf = (id: string) => `admin_sessions:${sha256Hex(id)}`;
  const bindingOf = (id: string) =>
    createHmac("sha256", adminToken).update(`mailpiece-admin-session:${id}`, "utf8").digest("hex");

  return {
    async open(): Promise<Session> {
      const id = randomToken();
      const created_at = now();
      const record: SessionRecord = {
        csrf: randomToken(),
        created_at,
        expires_at: created_at + SESSION_TTL_MS,
        binding: bindingOf(id),
      };
      const made = await store.create(keyOf(id), record, { ttlMs: SESSION_TTL_MS });
      if (!made.created) throw new Error("a new session id collided with a stored one");
      return { id, csrf: record.csrf, expires_at: record.expires_at };
    },

    /** The live session of a cookie value; undefined for a malformed, unknown, expired or superseded one. */
    async find(id: string | undefined): Promise<Session | undefined> {
      if (id === undefined || !RANDOM_TOKEN.test(id)) return undefined;
      const stored = (await store.get<SessionRecord>(keyOf(id)))?.value;
      if (!stored) return undefined;
      const expected = Buffer.from(bindingOf(id), "hex");
      const binding = Buffer.from(String(stored.binding), "hex");
      if (binding.length !== expected.length || !timingSafeEqual(binding, expected)) return undefined;
      if (!(stored.expires_at > now())) {
        await store.delete(keyOf(id)).catch(() => false);
        return undefined;
      }
      return { id, csrf: stored.csrf, expires_at: stored.expires_at };
    },

    async close(id: string): Promise<void> {
      if (RANDOM_TOKEN.test(id)) await store.delete(keyOf(id));
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

interface FailureWindow {
  window_start: number;
  failures: number;
}

/**
 * Failed sign-ins per client IP, counted in the store (under `admin_sign_in_failures:<sha256 of the IP>`) so that
 * every process counts the same ones: at most `SIGN_IN_LIMIT.failures` in a fixed window of `windowMs`. While a
 * client is over the limit, its sign-ins are refused without looking at the token.
 */
export function createSignInLimiter(store: Store, now: () => number, limit = SIGN_IN_LIMIT) {
  const keyOf = (client: string) => `admin_sign_in_failures:${sha256Hex(client)}`;
  const current = (window: FailureWindow | undefined, at: number): FailureWindow | undefined =>
    window && at - window.window_start < limit.windowMs ? window : undefined;

  return {
    /** Whole seconds until `client` may try again, or 0 when it may try now. */
    async blockedFor(client: string): Promise<number> {
      const at = now();
      const window = current((await store.get<FailureWindow>(keyOf(client)))?.value, at);
      if (!window || window.failures < limit.failures) return 0;
      return Math.max(1, Math.ceil((window.window_start + limit.windowMs - at) / 1000));
    },

    /** Counts one failed sign-in of `client`. */
    async fail(client: string): Promise<void> {
      const key = keyOf(client);
      for (let attempt = 0; attempt < 20; attempt++) {
        const at = now();
        const stored = await store.get<FailureWindow>(key);
        const window = current(stored?.value, at);
        const next: FailureWindow = window
          ? { ...window, failures: window.failures + 1 }
          : { window_start: at, failures: 1 };
        try {
          if (!stored) {
            if ((await store.create(key, next, { ttlMs: limit.windowMs })).created) return;
          } else {
            await store.put(key, next, { ifVersion: stored.version, ttlMs: limit.windowMs });
            return;
          }
        } catch (error) {
          if (!(PortError.isInstance(error) && error.code === "version_conflict")) throw error;
        }
      }
      throw new Error("the sign-in failure count is too contended to update");
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
