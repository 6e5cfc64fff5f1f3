import { defineConfig } from "vitest/config";

export default defineConfig({
  // Every test file runs behind the dial guard: nothing but 127.0.0.1 is ever dialled.
  test: { setupFiles: ["./src/dial-guard.setup.ts"] },
});
