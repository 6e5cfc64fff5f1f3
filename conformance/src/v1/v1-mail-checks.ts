import assert from "node:assert/strict";
import { isNotApplicable } from "../kit.ts";
import { makePdf } from "../machine/fixtures.ts";
import {
  expectCents,
  expectDateTime,
  expectError,
  expectInvalid,
  expectIssueAt,
  expectJson,
  expectOk,
  expectPdf,
  expectStringOrNull,
  shown,
} from "./v1-checks.ts";
import type { Json } from "./v1-client.ts";
import type { V1Check, V1Context } from "./v1-context.ts";
import { LETTER_PRICES, ORDER_STATUSES, RECEIPT_STATES, spec3 } from "./v1-fixtures.ts";

const LETTER_QUOTE = "Letter quote request (POST /api/v1/letters/quotes)";
const QUOTE_RESPONSE = "Quote response";
const ORDER_BODY = "Create-order body (POST /api/v1/letters or /api/v1/postcards)";
const ORDER_RESPONSE = "Order response";

/** Letter option combinations spec 3 makes unavailable, and the fields a refusal may name. */
const UNAVAILABLE_LETTER_OPTIONS: readonly [Json, readonly string[]][] = [
  [{ mail_class: "priority", certified: true }, ["mail_class", "certified"]],
  [{ mail_class: "express", certified: true }, ["mail_class", "certified"]],
  [{ restricted_delivery: true }, ["restricted_delivery"]],
  [{ return_receipt_format: "physical" }, ["return_receipt_format"]],
  [
    {
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "physical",
      err_delivery: "email",
    },
    ["err_delivery", "return_receipt_format"],
  ],
  [{ signature_required: true }, ["signature_required"]],
  [{ destination_country_code: "JP" }, ["destination_country_code"]],
];

/** Checks the order fields of spec 3 on an order of the suite's letter. */
function expectLetterOrder(order: Json, placed: { quote: Json; body: Json }): void {
  assert.equal(typeof order.id, "string", "id");
  assert.equal(order.object, "letter");
  assert.equal(order.mailpiece_type, "letter");
  assert.equal(order.postcard_size, null, "a letter has no postcard_size");
  assert.ok(
    ORDER_STATUSES.includes(order.status as string),
    `status is an order status: ${String(order.status)}`,
  );
  assert.equal(order.mode, "test");
  assert.equal(order.price_cents, placed.quote.price_cents, "the order costs its quote's price");
  assert.equal(typeof order.currency, "string", "currency");
  assert.equal(typeof order.funds_status, "string", "funds_status");
  assert.equal(typeof order.billing_rail, "string", "billing_rail");
  for (const field of [
    "tracking_number",
    "tracking_url",
    "tracking_status",
    "err_email",
    "return_receipt_url",
  ]) {
    expectStringOrNull(order[field], field);
  }
  assert.ok(order.return_receipt_format === "electronic" || order.return_receipt_format === "physical");
  assert.equal(typeof order.restricted_delivery, "boolean", "restricted_delivery");
  assert.ok(order.err_delivery === "manual" || order.err_delivery === "email", "err_delivery");
  assert.ok(RECEIPT_STATES.includes(order.err_status as string), `err_status: ${String(order.err_status)}`);
  assert.equal(typeof order.return_receipt_available, "boolean", "return_receipt_available");
  assert.deepEqual(order.metadata, placed.body.metadata, "the metadata is stored and returned");
  assert.ok(Array.isArray(order.timeline), "timeline is a list");
  for (const event of order.timeline as Json[]) {
    assert.equal(typeof event.id, "string", `timeline event id: ${JSON.stringify(event)}`);
    assert.equal(typeof event.event_type, "string", "timeline event_type");
    expectStringOrNull(event.status_before, "timeline status_before");
    assert.ok(
      ORDER_STATUSES.includes(event.status_after as string),
      `status_after: ${String(event.status_after)}`,
    );
    assert.equal(typeof event.source, "string", "timeline source");
    expectDateTime(event.created_at, "timeline created_at");
  }
  assert.ok(Array.isArray(order.webhook_events), "webhook_events is a list");
  expectDateTime(order.created_at, "created_at");
  expectDateTime(order.updated_at, "updated_at");
  assert.equal(typeof order.idempotent_replay, "boolean", "idempotent_replay");
}

/** Documents, quotes and letter orders. */
export function mailChecks(context: V1Context) {
  const { client } = context;
  return {
    "a document goes from upload intent through a keyless PUT to complete": {
      requirement: spec3(
        "What the service does",
        "Flow: create an upload intent, PUT the PDF bytes, mark the document complete, request a quote",
      ),
      gate: "keyed",
      run: async () => {
        const document = await context.letterDocument();
        const { intent } = document;
        assert.equal(intent.upload_method, "PUT", "upload_method");
        assert.ok(
          URL.canParse(intent.upload_url as string),
          `upload_url is a URI: ${String(intent.upload_url)}`,
        );
        expectDateTime(intent.expires_at, "expires_at");
        if (document.complete.page_count !== undefined) {
          assert.equal(document.complete.page_count, document.pages, "the completed document's page count");
        }
        const again = await context.putBytes(intent.upload_url as string, document.pdf);
        assert.ok(
          again.status >= 400 && again.status < 500,
          `an upload URL takes its bytes once: ${shown(again)}`,
        );
      },
    },

    "a document that is not complete cannot be quoted": {
      requirement: spec3(
        "Upload intent response",
        "Request: content_type, byte_size, optional page_count; completion body: page_count.",
      ),
      gate: "keyed",
      run: async () => {
        const pdf = await makePdf(1);
        const intent = expectJson(
          await client.send("/api/v1/documents/upload-intent", {
            body: { content_type: "application/pdf", byte_size: pdf.byteLength },
          }),
          [200, 201],
          "upload intent",
        );
        const quote = () =>
          client.send("/api/v1/letters/quotes", { body: { document_id: intent.document_id } });
        expectIssueAt(expectInvalid(await quote()), "document_id");
        const put = await context.putBytes(intent.upload_url as string, pdf);
        assert.ok(put.status >= 200 && put.status < 300, `the PUT: ${shown(put)}`);
        const wrong = await client.send(`/api/v1/documents/${intent.document_id}/complete`, {
          body: { page_count: 2 },
        });
        expectIssueAt(expectInvalid(wrong), "page_count");
        expectIssueAt(expectInvalid(await quote()), "document_id");
        const unknown = await client.send("/api/v1/letters/quotes", {
          body: { document_id: `doc_${"0".repeat(32)}` },
        });
        if (unknown.status === 404) expectError(unknown, 404);
        else expectIssueAt(expectInvalid(unknown), "document_id");
      },
    },

    "a letter quote carries the spec's fields, its defaults and the options as sent": {
      requirement: spec3(
        QUOTE_RESPONSE,
        "quote_id, mailpiece_type (letter or postcard), postcard_size (or null), price_cents (integer), currency (usd), pricing_version, ... expires_at (date-time; a quote cannot be used after it).",
      ),
      gate: "keyed",
      run: async () => {
        const quote = await context.letterQuote();
        assert.equal(typeof quote.quote_id, "string", "quote_id");
        assert.equal(quote.mailpiece_type, "letter");
        assert.equal(quote.postcard_size, null);
        assert.equal(quote.currency, "usd");
        assert.ok(
          typeof quote.pricing_version === "string" && quote.pricing_version.length > 0,
          "pricing_version",
        );
        assert.equal(quote.certified_return_receipt, false, "certified_return_receipt defaults to false");
        assert.equal(
          quote.return_receipt_format,
          "electronic",
          "return_receipt_format defaults to electronic",
        );
        assert.equal(quote.restricted_delivery, false, "restricted_delivery defaults to false");
        assert.equal(quote.err_delivery, "manual", "err_delivery defaults to manual");
        assert.equal(quote.err_email, null, "err_email");
        assert.equal(quote.signature_required, false, "signature_required defaults to false");
        assert.equal(typeof quote.standalone_address_page, "boolean", "standalone_address_page is resolved");
        expectDateTime(quote.expires_at, "expires_at");
        const receipts = await context.letterQuote({
          certified: true,
          certified_return_receipt: true,
          restricted_delivery: true,
          return_receipt_format: "electronic",
        });
        assert.equal(receipts.certified_return_receipt, true, "certified_return_receipt as sent");
        assert.equal(receipts.restricted_delivery, true, "restricted_delivery as sent");
        assert.equal(receipts.return_receipt_format, "electronic", "return_receipt_format as sent");
        const signed = await context.letterQuote({ mail_class: "priority", signature_required: true });
        assert.equal(signed.signature_required, true, "signature_required as sent on a priority letter");
        const address = await context.letterQuote({ standalone_address_page: true });
        assert.equal(
          address.standalone_address_page,
          true,
          "an explicit standalone_address_page is fixed on the quote",
        );
      },
    },

    "unavailable letter option combinations are 422 at their field, never changed": {
      requirement: spec3(
        LETTER_QUOTE,
        "Unavailable option combinations return a validation error rather than a silent change.",
      ),
      gate: "keyed",
      run: async () => {
        const document = await context.letterDocument();
        for (const [options, paths] of UNAVAILABLE_LETTER_OPTIONS) {
          const answer = await client.send("/api/v1/letters/quotes", {
            body: { document_id: document.id, ...options },
          });
          assert.equal(answer.status, 422, `${JSON.stringify(options)} is refused: ${shown(answer)}`);
          expectIssueAt(expectInvalid(answer), ...paths);
        }
      },
    },

    "letter prices follow the published constants": {
      requirement: spec3(
        "Pricing constants",
        "Standard letters: base fee 1.80 plus 0.20 per billable black-and-white page or 0.40 per billable color page (USD). Large packets and high-cost routes can use a provider-cost floor. Add-ons: U.S. certified mail 8.00; Canada registered mail 32.00; electronic return receipt 3.00.",
      ),
      gate: "keyed",
      run: async () => {
        // A provider-cost floor is for large packets and high-cost routes only: the suite's short domestic letter
        // costs exactly its constants, plain or certified. Routes abroad may add postage, never take off.
        const price = async (options: Json) => (await context.letterQuote(options)).price_cents as number;
        const { base, bwPage, colorPage, usCertified, electronicReturnReceipt, caRegistered } = LETTER_PRICES;
        const certified = await price({ certified: true });
        const pages = (certified - base - usCertified) / bwPage;
        assert.ok(
          Number.isInteger(pages) && pages >= 1,
          `a certified black-and-white letter costs 1.80 + 0.20 a page + 8.00: ${certified}`,
        );
        assert.equal(
          await price({ certified: true, color: true }),
          base + pages * colorPage + usCertified,
          "a color page costs 0.40 instead of 0.20",
        );
        assert.equal(
          (await price({ certified: true, certified_return_receipt: true })) - certified,
          electronicReturnReceipt,
          "an electronic return receipt adds 3.00",
        );
        assert.equal(
          await price({}),
          base + pages * bwPage,
          "a short plain letter costs 1.80 + 0.20 a page, with no floor",
        );
        const registered = await price({ destination_country_code: "CA", certified: true });
        assert.ok(
          registered >= base + pages * bwPage + caRegistered,
          `Canada registered mail adds 32.00: ${registered}`,
        );
      },
    },

    "a postcard quote needs postcard_size and takes no proof mail": {
      requirement: spec3(
        "Postcard quote request (POST /api/v1/postcards/quotes)",
        "postcard_size (required: 4x6, 6x9, 11x6) ... Postcards are quoted as first-class, color, double-sided and accept no proof-mail options.",
      ),
      gate: "keyed",
      run: async () => {
        const document = await context.postcardDocument();
        const quote = (body: Json) =>
          client.send("/api/v1/postcards/quotes", { body: { document_id: document.id, ...body } });
        expectIssueAt(expectInvalid(await quote({})), "postcard_size");
        expectIssueAt(expectInvalid(await quote({ postcard_size: "4x6", certified: true })), "certified");
        expectIssueAt(expectInvalid(await quote({ postcard_size: "4x6", color: false })), "color");
        const card = expectOk(await quote({ postcard_size: "4x6" }), "a postcard quote");
        assert.equal(card.mailpiece_type, "postcard");
        assert.equal(card.postcard_size, "4x6");
        expectCents(card.price_cents, "price_cents", 1);
        if ("color" in card) assert.equal(card.color, true, "postcards are quoted in color");
        if ("double_sided" in card)
          assert.equal(card.double_sided, true, "postcards are quoted double-sided");
      },
    },

    "an order needs an Idempotency-Key; a retry answers the same order; the key with another body is refused":
      {
        requirement: spec3(
          ORDER_BODY,
          "Header `Idempotency-Key` is required. Reusing a key with the same quote returns the original order with `idempotent_replay` true.",
        ),
        gate: "mailing",
        run: async () => {
          const placed = await context.placedOrder();
          if (isNotApplicable(placed)) return placed;
          const { body, idempotencyKey, order } = placed;
          assert.equal(order.idempotent_replay, false, "a new order is not a replay");
          expectError(
            await context.sendOnce("/api/v1/letters", body, undefined),
            400,
            "idempotency_key_required",
          );
          const retry = expectOk(
            await context.sendOnce("/api/v1/letters", body, idempotencyKey),
            "the retry",
          );
          assert.equal(retry.id, order.id, "the retry answers the original order");
          assert.equal(retry.idempotent_replay, true, "the retry is marked idempotent_replay");
          const other = await context.sendOnce(
            "/api/v1/letters",
            { ...body, metadata: { conformance: "another body" } },
            idempotencyKey,
          );
          assert.ok(
            other.status >= 400 && other.status < 500,
            `the key with another body is refused: ${shown(other)}`,
          );
          expectError(other, other.status);
          const after = await context.balance();
          assert.equal(
            after.available_cents,
            (placed.before.available_cents as number) - (order.price_cents as number),
            "the price was reserved once: retries charge nothing more",
          );
        },
      },

    "an order reads back with its timeline, funds and metadata": {
      requirement: spec3(
        ORDER_RESPONSE,
        "timeline | list of events ... Timeline event: id, event_type, status_before, status_after, source, created_at.",
      ),
      gate: "mailing",
      run: async () => {
        const placed = await context.placedOrder();
        if (isNotApplicable(placed)) return placed;
        expectLetterOrder(placed.order, placed);
        const read = expectJson(await client.send(`/api/v1/letters/${placed.order.id}`), 200, "the order");
        expectLetterOrder(read, placed);
        assert.equal(read.id, placed.order.id);
        expectError(await client.send(`/api/v1/letters/ord_${"0".repeat(32)}`), 404);
      },
    },

    "an order's document.pdf is its PDF": {
      requirement: spec3("Endpoints", "GET | /letters/{order_id}/document.pdf | PDF bytes"),
      gate: "mailing",
      run: async () => {
        const placed = await context.placedOrder();
        if (isNotApplicable(placed)) return placed;
        expectPdf(
          await client.send(`/api/v1/letters/${placed.order.id}/document.pdf`),
          "the order's document",
        );
      },
    },
  } satisfies Record<string, V1Check>;
}
