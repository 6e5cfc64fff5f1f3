import { describe, expect, it } from "vitest";
import type { HttpTarget } from "../machine/http-target.ts";
import { v1Client } from "./v1-client.ts";

/** A target answering each request with the next of `answers`, recording what it was sent. */
function scripted(answers: (() => Response)[]) {
  const sent: { path: string; init: RequestInit | undefined }[] = [];
  const target: HttpTarget = {
    label: "scripted",
    fetch: async (path, init) => {
      sent.push({ path, init });
      const next = answers.shift();
      if (!next) throw new Error("no answer left");
      return next();
    },
  };
  return { target, sent };
}

const limited = (retryAfter: string) =>
  Response.json(
    { error: "rate_limited", message: "wait" },
    { status: 429, headers: { "retry-after": retryAfter } },
  );

describe("v1Client", () => {
  it("sends the key as a bearer, a body as JSON, and reads the answer", async () => {
    const { target, sent } = scripted([() => Response.json({ ok: true }, { status: 201 })]);
    const answer = await v1Client(target, "svc_test_key").send("/api/v1/drafts", {
      body: { type: "letter" },
    });
    expect(answer).toMatchObject({ status: 201, json: { ok: true }, text: '{"ok":true}' });
    expect(sent[0]!.init).toMatchObject({
      method: "POST",
      headers: { authorization: "Bearer svc_test_key", "content-type": "application/json" },
      body: '{"type":"letter"}',
    });
  });

  it("sends no key when told so, and reads a body that is not a JSON object as text only", async () => {
    const { target, sent } = scripted([() => new Response("[1,2]")]);
    const answer = await v1Client(target, "svc_test_key").send("/v1/test/orders/x", { key: null });
    expect(answer.json).toBeUndefined();
    expect(answer.text).toBe("[1,2]");
    expect(sent[0]!.init?.headers).toEqual({});
  });

  it("sends a request again once a 429's Retry-After has passed, at most twice", async () => {
    const again = scripted([() => limited("0"), () => Response.json({ ok: true })]);
    expect((await v1Client(again.target, "k").send("/api/v1/credits/balance")).status).toBe(200);
    expect(again.sent).toHaveLength(2);

    const stays = scripted([() => limited("0"), () => limited("0"), () => limited("0")]);
    expect((await v1Client(stays.target, "k").send("/api/v1/credits/balance")).status).toBe(429);
    expect(stays.sent).toHaveLength(3);
  });

  it("answers a 429 that asks for a long or unreadable wait as it is", async () => {
    for (const retryAfter of ["3600", "soon"]) {
      const { target, sent } = scripted([() => limited(retryAfter)]);
      expect((await v1Client(target, "k").send("/api/v1/credits/balance")).status).toBe(429);
      expect(sent).toHaveLength(1);
    }
  });

  it("sends URLs the API answered through the target when their path is the deployment's", async () => {
    const { target, sent } = scripted([() => new Response("ok")]);
    await v1Client(target, "k").sendToUrl("http://127.0.0.1:3000/api/v1/documents/doc_1/upload?token=t", {
      method: "PUT",
    });
    expect(sent[0]!.path).toBe("/api/v1/documents/doc_1/upload?token=t");
    expect(sent[0]!.init).toEqual({ method: "PUT" });
  });
});
