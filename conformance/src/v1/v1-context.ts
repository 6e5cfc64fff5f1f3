import assert from "node:assert/strict";
import type { NotApplicable, Requirement } from "../kit.ts";
import { isNotApplicable, notApplicable } from "../kit.ts";
import { makePdf } from "../machine/fixtures.ts";
import type { HttpTarget } from "../machine/http-target.ts";
import { expectCents, expectJson, expectOk, shown } from "./v1-checks.ts";
import type { Answer, Json, V1Client } from "./v1-client.ts";
import { v1Client } from "./v1-client.ts";
import { senderAddress, tag, usAddress } from "./v1-fixtures.ts";

/**
 * What a check needs to run: nothing (`keyless`), an API key (`keyed`), a test-mode key because it mails or pays
 * (`mailing`), or a test-mode key and the admin token (`approving`).
 */
export type Gate = "keyless" | "keyed" | "mailing" | "approving";

/** One check of the suite before its gate is applied. */
export interface V1Check {
  requirement: Requirement;
  gate: Gate;
  /** Throws on failure; resolves to notApplicable(reason) when the target does not offer what it checks. */
  run(): Promise<unknown>;
}

export const NEEDS_KEY = "needs an API key: pass apiKey";
export const NEEDS_TEST_KEY = "paying check: runs only with a test-mode key";
export const NEEDS_ADMIN_TOKEN = "needs the operator's admin token: pass adminToken";
export const INSUFFICIENT_CREDITS = "insufficient test credits";

/** A document uploaded and completed through the API, with the answers of each step. */
export interface UploadedDocument {
  id: string;
  pdf: Uint8Array;
  pages: number;
  intent: Json;
  put: Answer;
  complete: Json;
}

/** The suite's letter order: the body and key it was created with, its quote, and the balance before. */
export interface PlacedOrder {
  body: Json;
  idempotencyKey: string;
  quote: Json;
  before: Json;
  order: Json;
}

/** A key of test mode: the prefix says so and the deployment's balance agrees. */
const TEST_KEY = /^[A-Za-z0-9]+_test_/;

/** Runs `make` once, when first asked; every caller gets the same promise. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** The state one run of the suite shares between its checks: each piece is made when a check first needs it. */
export type V1Context = ReturnType<typeof v1Context>;

export function v1Context(target: HttpTarget, options: { apiKey?: string; adminToken?: string }) {
  const client: V1Client = v1Client(target, options.apiKey);
  const apiKey = options.apiKey;

  const balance = async (): Promise<Json> =>
    expectJson(await client.send("/api/v1/credits/balance"), 200, "balance");

  const keyMode = once(async () => {
    const mode = (await balance()).mode;
    assert.ok(mode === "test" || mode === "live", `the balance names the key's mode: ${String(mode)}`);
    return mode;
  });

  /** Undefined when the gate lets the check run, else why not. */
  const blocked = async (gate: Gate): Promise<NotApplicable | undefined> => {
    if (gate === "keyless") return undefined;
    if (apiKey === undefined) return notApplicable(NEEDS_KEY);
    if (gate === "keyed") return undefined;
    if (!TEST_KEY.test(apiKey) || (await keyMode()) !== "test") return notApplicable(NEEDS_TEST_KEY);
    if (gate === "approving" && options.adminToken === undefined) return notApplicable(NEEDS_ADMIN_TOKEN);
    return undefined;
  };

  /** Declares `pdf`, PUTs it to the upload URL and completes it with its page count. */
  const upload = async (pdf: Uint8Array, pages: number): Promise<UploadedDocument> => {
    const intent = expectJson(
      await client.send("/api/v1/documents/upload-intent", {
        body: { content_type: "application/pdf", byte_size: pdf.byteLength, page_count: pages },
      }),
      [200, 201],
      "upload intent",
    );
    assert.equal(typeof intent.document_id, "string", "the intent names its document_id");
    assert.equal(typeof intent.upload_url, "string", "the intent has an upload_url");
    const put = await putBytes(intent.upload_url as string, pdf);
    assert.ok(put.status >= 200 && put.status < 300, `the PUT of the declared bytes: ${shown(put)}`);
    const complete = expectOk(
      await client.send(`/api/v1/documents/${intent.document_id}/complete`, { body: { page_count: pages } }),
      "completion",
    );
    return { id: intent.document_id as string, pdf, pages, intent, put, complete };
  };

  /** A PUT of `bytes` to an upload URL the API answered, with its length declared. */
  const putBytes = (url: string, bytes: Uint8Array) =>
    client.sendToUrl(url, {
      method: "PUT",
      headers: { "content-type": "application/pdf", "content-length": String(bytes.byteLength) },
      body: bytes,
    });

  /** A one-page US letter document, ready. */
  const letterDocument = once(async () => upload(await makePdf(1), 1));
  /** A two-page 4x6 postcard on its bleed canvas (6.25 x 4.25 in), ready. */
  const postcardDocument = once(async () => upload(await makePdf(2, [450, 306]), 2));

  /** A letter quote of the ready letter document with these options; asserts 2xx. */
  const letterQuote = async (options: Json = {}): Promise<Json> => {
    const document = await letterDocument();
    const quote = expectOk(
      await client.send("/api/v1/letters/quotes", { body: { document_id: document.id, ...options } }),
      `a letter quote of ${JSON.stringify(options)}`,
    );
    expectCents(quote.price_cents, "price_cents", 1);
    return quote;
  };

  /** The body of a letter order or draft from a new quote. */
  const letterBody = async (
    metadata: Json = { conformance: tag() },
  ): Promise<{ quote: Json; body: Json }> => {
    const quote = await letterQuote();
    return {
      quote,
      body: {
        quote_id: quote.quote_id,
        recipient: usAddress("Conformance Recipient"),
        sender: senderAddress(),
        metadata,
      },
    };
  };

  /** Not applicable when the credits available do not cover `price`. */
  const coverage = (before: Json, price: number): NotApplicable | undefined =>
    expectCents(before.available_cents, "available_cents") < price
      ? notApplicable(INSUFFICIENT_CREDITS)
      : undefined;

  /** POST of `body` to `path` with an Idempotency-Key (none when undefined). */
  const sendOnce = (path: string, body: unknown, idempotencyKey: string | undefined) =>
    client.send(path, {
      body,
      headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
    });

  /** The suite's letter order, placed once with a new Idempotency-Key; not applicable without the credits. */
  const placedOrder = once(async (): Promise<PlacedOrder | NotApplicable> => {
    const { quote, body } = await letterBody({ conformance: tag() });
    const before = await balance();
    const poor = coverage(before, quote.price_cents as number);
    if (poor) return poor;
    const idempotencyKey = crypto.randomUUID();
    const created = await sendOnce("/api/v1/letters", body, idempotencyKey);
    const order = expectOk(created, "the order");
    return { body, idempotencyKey, quote, before, order };
  });

  /** The workspace of the API key, found in the admin API's listing by the ids of the workspace's keys. */
  const workspaceId = once(async (): Promise<string> => {
    const keys = expectJson(await client.send("/api/v1/api-keys"), 200, "the key list");
    const ids = new Set(((keys.data ?? []) as Json[]).map((key) => key.id));
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const query: string = cursor === null ? "limit=200" : `limit=200&cursor=${encodeURIComponent(cursor)}`;
      const listed = expectJson(
        await admin(`/admin/api/workspaces?${query}`),
        200,
        "the admin workspace list",
      );
      for (const workspace of (listed.data ?? []) as Json[]) {
        if (((workspace.keys ?? []) as Json[]).some((key) => ids.has(key.id))) return workspace.id as string;
      }
      cursor = (listed.next_cursor as string | null | undefined) ?? null;
      if (cursor === null) break;
    }
    throw new Error("the admin API lists no workspace holding the API key");
  });

  /** A request to the admin API with the admin token. */
  const admin = (path: string, body?: unknown) =>
    client.send(path, {
      key: options.adminToken ?? null,
      ...(body === undefined ? {} : { method: "POST", body }),
    });

  return {
    client,
    apiKey,
    blocked,
    balance,
    letterDocument,
    postcardDocument,
    upload,
    putBytes,
    letterQuote,
    letterBody,
    coverage,
    sendOnce,
    placedOrder,
    workspaceId,
    admin,
  };
}

/** Runs a check behind its gate. */
export function gated(context: V1Context, check: V1Check): () => Promise<undefined | NotApplicable> {
  return async () => {
    const blocked = await context.blocked(check.gate);
    if (blocked) return blocked;
    const result = await check.run();
    return isNotApplicable(result) ? result : undefined;
  };
}
