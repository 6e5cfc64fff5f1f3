/**
 * The slice of the Store port the engine needs. Any `@mailpiece/ports` Store satisfies it; the atomicity of
 * `create` (exactly one winner under concurrent callers) is what makes every claim below safe.
 */
export interface ClaimStore {
  get<T = unknown>(key: string): Promise<{ value: T; version: number } | undefined>;
  create<T = unknown>(
    key: string,
    value: T,
    options?: { ttlMs?: number },
  ): Promise<{ created: boolean; record: { value: T; version: number } }>;
}
