import { defineConfig } from "vitest/config";

export default defineConfig({
  // Every test file runs behind the dial guard: nothing generated may make the server reach past this machine.
  test: { setupFiles: ["./src/dial-guard.setup.ts"] },
});
