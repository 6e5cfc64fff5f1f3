import { PortError } from "@mailpiece/ports";

/** The message prefix of one store, e.g. `[mailpiece] [file-store]`. */
export function messageTag(name: string, kind: "store" | "blob-store"): string {
  return `[mailpiece] [${name}-${kind}]`;
}

export function invalidKeyError(tag: string, key: unknown): PortError {
  const shown =
    typeof key === "string" ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : String(key);
  return new PortError(
    "invalid_key",
    `${tag} invalid key ${shown}: use 1 to 512 letters, digits, '.', '_', '-' or ':', starting with a letter or digit`,
  );
}

export function closedError(tag: string): PortError {
  return new PortError("store_unavailable", `${tag} the store is closed`);
}

/** Wraps a failure of the underlying storage; a PortError passes through unchanged. */
export function storageError(tag: string, action: string, cause: unknown): PortError {
  if (PortError.isInstance(cause)) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new PortError("store_unavailable", `${tag} could not ${action}: ${reason}`, { cause });
}
