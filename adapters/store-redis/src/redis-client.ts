import { Redis } from "ioredis";

export interface RedisConnectionOptions {
  /** The server to connect to, e.g. `redis://127.0.0.1:6379/0`; default `redis://127.0.0.1:6379`. */
  url?: string;
  /** A client to use instead of connecting; the store leaves it open on `close()`. */
  client?: Redis;
  /** Put before every Redis key the store uses, so several stores can share one server; default `mailpiece:`. */
  prefix?: string;
}

export const DEFAULT_URL = "redis://127.0.0.1:6379";
export const DEFAULT_PREFIX = "mailpiece:";

/** The client a store uses, whether the store opened it (and so closes it), and the key prefix. */
export function openClient(options: RedisConnectionOptions): {
  client: Redis;
  owned: boolean;
  prefix: string;
} {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== "string") throw new TypeError("prefix must be a string");
  if (options.client && options.url !== undefined) {
    throw new TypeError("pass either url or client, not both");
  }
  if (options.client) return { client: options.client, owned: false, prefix };
  const client = new Redis(options.url ?? DEFAULT_URL);
  // Failures reach the caller through the rejected commands; without a listener ioredis would also log each one.
  client.on("error", () => undefined);
  return { client, owned: true, prefix };
}
