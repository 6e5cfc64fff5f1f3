import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestCertificate } from "@mailpiece/conformance";
import { createSafeFetcher } from "@mailpiece/fetch-https";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { IdGenerator } from "@mailpiece/ports";
import { manualClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { defaultCoreConfig } from "../config.ts";
import { createPreviewSigner } from "../previews.ts";
import type { TestDraftsDeps } from "./test-drafts.ts";
import { createTestDrafts } from "./test-drafts.ts";

/** 9:00 UTC on 10 March 2026: the clock every test starts at. */
export const START = Date.UTC(2026, 2, 10, 9);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const PREVIEW_TTL_MS = 15 * MINUTE;

/** Ids 00000000-0000-4000-8000-000000000001, ...002 and so on. */
export function sequentialIds(): IdGenerator {
  let next = 0;
  return { uuid: () => `00000000-0000-4000-8000-${String(++next).padStart(12, "0")}` };
}

/** A UUID for an Idempotency-Key, different for each `n`. */
export const key = (n: number) => `6f1f5e2b-7c03-4d0e-9a55-${String(n).padStart(12, "0")}`;

/**
 * The test drafts over memory stores, a manual clock, sequential ids and a preview signer; the document work runs
 * inline unless `pdf` is given. `deps` overrides anything.
 */
export function testDrafts(deps: Partial<TestDraftsDeps> = {}) {
  const clock = manualClock(START);
  const store = createMemoryStore();
  const blobs = createMemoryBlobStore();
  const service = createTestDrafts({
    store,
    blobs,
    clock,
    ids: sequentialIds(),
    config: defaultCoreConfig(),
    previews: createPreviewSigner("test-drafts-preview-secret", PREVIEW_TTL_MS),
    ...deps,
  });
  /** Every key the store holds, to check what a request wrote. */
  const keys = async () => (await store.list("", { limit: 1000 })).records.map((record) => record.key);
  return { service, clock, store, blobs, keys };
}

/** The PDF behind a preview path (`/v1/test/previews/<sha>.pdf?expires=&sig=`), opened through the service. */
export async function previewBytes(
  service: ReturnType<typeof createTestDrafts>,
  path: string | null,
): Promise<Uint8Array> {
  if (path === null) throw new Error("the draft has no preview link");
  const url = new URL(path, "http://127.0.0.1");
  const sha256 = url.pathname.replace(/^.*\//, "").replace(/\.pdf$/, "");
  return service.openPreview(sha256, url.searchParams.get("expires"), url.searchParams.get("sig"));
}

/** Each page's text as pdftotext reads it in content order; diagonal text comes letter by letter. */
export function pageTexts(pdf: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-test-drafts-"));
  try {
    const file = join(dir, "preview.pdf");
    writeFileSync(file, pdf);
    const text = execFileSync("pdftotext", ["-enc", "UTF-8", "-raw", file, "-"], { encoding: "utf8" });
    // pdftotext ends every page with a form feed.
    return text.split("\f").slice(0, -1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether a page's text holds the TEST MODE watermark (read back letter by letter, spaces dropped). */
export const marked = (page: string) => page.replace(/\s+/g, "").includes("TESTMODE");

/**
 * A small PDF written by hand: `pages` pages of `size` points, each saying "CLIENT PAGE n" in Helvetica, as a client's
 * own PDF would.
 */
export function clientPdf(pages: number, size: [number, number] = [612, 792]): Uint8Array {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${4 + i * 2} 0 R`).join(" ")}] /Count ${pages} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  for (let n = 1; n <= pages; n++) {
    const content = `BT /F1 16 Tf 72 ${size[1] - 100} Td (CLIENT PAGE ${n}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size[0]} ${size[1]}] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + (n - 1) * 2} 0 R >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    );
  }
  let text = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, "0")} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(text);
}

/** Document work that refuses every job as a busy pool does. */
export function busyPdfWork(busy: unknown): PdfWork {
  const refuse = () => Promise.reject(busy);
  return {
    typesetLetter: refuse,
    typesetHandwritten: refuse,
    inspectPdf: refuse,
    checkPostcard: refuse,
    buildPacket: refuse,
    watermarkPdf: refuse,
    close: async () => {},
  };
}

/** The host name PDFs are served under: the tests' resolver gives 127.0.0.1, and it is the one private host. */
export const PDF_HOST = "files.example.test";

/** An HTTPS server on 127.0.0.1 with a self-signed certificate for PDF_HOST, answering its paths' bodies. */
export async function startPdfServer(routes: Record<string, { status?: number; body: Uint8Array | string }>) {
  const pems = await createTestCertificate([PDF_HOST]);
  const requests: string[] = [];
  const server = createServer(
    { key: pems.key, cert: pems.cert },
    (request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? "/";
      requests.push(path);
      const route = routes[path];
      response.writeHead(route?.status ?? (route ? 200 : 404), { "content-type": "application/pdf" });
      response.end(route?.body ?? "not found");
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  // The deployment's fetcher, as the server makes it from PDF_DOWNLOAD_HOSTS, with the test host admitted as a
  // development private host and resolved to 127.0.0.1: nothing else is ever dialled.
  const fetcher = createSafeFetcher({
    allowHosts: [`${PDF_HOST}:${port}`],
    privateHosts: [`${PDF_HOST}:${port}`],
    lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    tls: { ca: pems.cert },
    maxBytes: 10 * 1024 * 1024,
    timeoutMs: 10_000,
  });
  return {
    url: (path: string) => `https://${PDF_HOST}:${port}${path}`,
    requests,
    fetchDocument: async (url: string) => (await fetcher.fetch(url)).bytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a refused promise threw: a CoreError with its code, issues and message. */
export async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; issues: { path: string; code: string; message: string }[] }> {
  try {
    await promise;
  } catch (error) {
    return error as {
      code: string;
      message: string;
      issues: { path: string; code: string; message: string }[];
    };
  }
  throw new Error("expected a refusal");
}
