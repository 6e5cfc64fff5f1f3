export type { RedisBlobStoreOptions } from "./redis-blob-store.ts";
export { createRedisBlobStore } from "./redis-blob-store.ts";
export type { RedisConnectionOptions } from "./redis-client.ts";
export type { RedisStoreOptions } from "./redis-store.ts";
export { createRedisStore } from "./redis-store.ts";
