/** Test helpers: a simulated printer on a manual clock, and PDFs read back with poppler's tools. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manualClock, PrintError, type PrintErrorCode } from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { createSimulatedPrinter, type SimulatedPrinterOptions } from "./simulated-printer.ts";

/** The start of every test's clock: 2026-01-01T00:00:00Z. */
export const T0 = Date.UTC(2026, 0, 1);

/** A simulated printer on a manual clock at `T0` and a memory store, with references `sim_0…01`, `sim_0…02`, …. */
export function setup(options: Partial<SimulatedPrinterOptions> = {}) {
  const clock = manualClock(T0);
  const store = options.store ?? createMemoryStore({ clock });
  let n = 0;
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
  const printer = createSimulatedPrinter({ store, clock, ids, ...options });
  return { clock, store, printer };
}

/** The PrintError code `action` fails with, or undefined when it succeeds; other failures are rethrown. */
export async function codeOf(action: () => Promise<unknown>): Promise<PrintErrorCode | undefined> {
  try {
    await action();
  } catch (error) {
    if (PrintError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

/** The text of the PDF as pdftotext reads it, layout kept. */
export function pdfText(pdf: Uint8Array): string {
  return withTempPdf(pdf, (file) =>
    execFileSync("pdftotext", ["-enc", "UTF-8", "-layout", file, "-"], { encoding: "utf8" }),
  );
}

/** The page count and page size pdfinfo reports. */
export function pdfInfo(pdf: Uint8Array): { pages: number; size: string } {
  const info = withTempPdf(pdf, (file) => execFileSync("pdfinfo", [file], { encoding: "utf8" }));
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]),
    size: /^Page size:\s+(.+)$/m.exec(info)?.[1]?.trim() ?? "",
  };
}

function withTempPdf<T>(pdf: Uint8Array, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-print-sim-"));
  try {
    const file = join(dir, "receipt.pdf");
    writeFileSync(file, pdf);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
