import { makePdf } from "@mailpiece/conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startV1Server, type V1Server } from "../test-server.fixture.ts";

let server: V1Server;

beforeEach(async () => {
  server = await startV1Server();
});

afterEach(async () => {
  await server.close();
  expect(server.unexpected).toEqual([]);
});

/** A document uploaded and completed through the API; answers its id. */
async function readyDocument(key: string, pdf: Uint8Array, pages: number): Promise<string> {
  const intent = (await (
    await server.post("/documents/upload-intent", key, {
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
    })
  ).json()) as { document_id: string; upload_url: string };
  const put = await fetch(intent.upload_url, {
    method: "PUT",
    headers: { "content-type": "application/pdf" },
    body: pdf,
  });
  expect(put.status).toBe(200);
  const done = await server.post(`/documents/${intent.document_id}/complete`, key, { page_count: pages });
  expect(done.status).toBe(200);
  return intent.document_id;
}

describe("documents and quotes over HTTP", () => {
  it("takes an upload intent, a PUT to its URL without a key, the completion, and quotes of the document", async () => {
    const { test_api_key: key } = await server.workspace();
    const pdf = await makePdf(2);
    const created = await server.post("/documents/upload-intent", key, {
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
      page_count: 2,
    });
    expect(created.status).toBe(201);
    const intent = (await created.json()) as Record<string, string>;
    expect(intent).toMatchObject({ upload_method: "PUT" });
    expect(intent.upload_url).toMatch(
      new RegExp(`^${server.base}/api/v1/documents/doc_[0-9a-f]{32}/upload\\?token=`),
    );
    const put = (url: string, body: Uint8Array, headers: Record<string, string> = {}) =>
      fetch(url, { method: "PUT", headers: { "content-type": "application/pdf", ...headers }, body });
    // A wrong secret is not_found; a different size is refused with its code; then the upload works once.
    expect((await put(`${intent.upload_url}x`, pdf)).status).toBe(404);
    const short = await put(intent.upload_url!, pdf.subarray(1));
    expect(short.status).toBe(422);
    expect(((await short.json()) as { issues: { code: string }[] }).issues[0]!.code).toBe(
      "byte_size_mismatch",
    );
    expect((await put(intent.upload_url!, pdf)).status).toBe(200);
    expect((await put(intent.upload_url!, pdf)).status).toBe(422);

    const wrongCount = await server.post(`/documents/${intent.document_id}/complete`, key, { page_count: 3 });
    expect(wrongCount.status).toBe(422);
    const done = await server.post(`/documents/${intent.document_id}/complete`, key, { page_count: 2 });
    expect(await done.json()).toMatchObject({ status: "ready", page_count: 2 });
    expect((await server.call(`/documents/${intent.document_id}`, key)).status).toBe(200);

    const quote = await server.post("/letters/quotes", key, {
      document_id: intent.document_id,
      mail_class: "carrier_priority",
    });
    expect(quote.status).toBe(201);
    expect(await quote.json()).toMatchObject({
      mailpiece_type: "letter",
      mail_class: "priority",
      page_count: 2,
    });
    const refused = await server.post("/letters/quotes", key, {
      document_id: intent.document_id,
      mail_class: "priority",
      certified: true,
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(
      "mail_class",
    );
    // The upload secret is shown in the intent only.
    const secret = new URL(intent.upload_url!).searchParams.get("token")!;
    expect((await server.said()).split(secret).length - 1).toBe(1);
  });

  it("keeps another workspace's documents out of reach, and needs a Content-Length to upload", async () => {
    const { test_api_key: key } = await server.workspace();
    const { test_api_key: other } = await server.workspace("Other");
    const id = await readyDocument(key, await makePdf(1), 1);
    expect((await server.call(`/documents/${id}`, other)).status).toBe(404);
    expect((await server.post(`/documents/${id}/complete`, other, { page_count: 1 })).status).toBe(404);
    const quote = await server.post("/postcards/quotes", other, { document_id: id, postcard_size: "4x6" });
    expect(quote.status).toBe(422);
    expect((await server.call("/letters/quotes", undefined, { method: "POST" })).status).toBe(401);
  });
});
