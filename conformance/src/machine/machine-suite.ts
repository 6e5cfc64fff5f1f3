import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { notApplicable, type Suite, type TestBody } from "../kit.ts";
import {
  flowerLetterRequest,
  letterOrder,
  longBody,
  makePdf,
  manualAddress,
  mortgageFormFields,
  mortgageFormOrder,
  pdfDataUrl,
} from "./fixtures.ts";
import type { HttpTarget } from "./http-target.ts";
import { checkedTarget } from "./http-target.ts";
import { MACHINE_REQUIREMENTS } from "./machine-requirements.ts";

type Json = Record<string, unknown>;
interface Issue {
  path: string;
  code: string;
  message: string;
}

const VALIDATE = "/api/machine/orders/validate";
const VALIDATE_MPP = "/api/machine/mpp/orders/validate";

async function post(target: HttpTarget, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await target.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

async function validOk(target: HttpTarget, body: unknown, path = VALIDATE): Promise<Json> {
  const res = await post(target, path, body);
  assert.equal(res.status, 200, `expected 200 from ${path}, got ${res.status}: ${res.text.slice(0, 500)}`);
  assert.ok(res.json, "the body is JSON");
  return res.json;
}

async function issuesOf(target: HttpTarget, body: unknown): Promise<Issue[]> {
  const res = await post(target, VALIDATE, body);
  assert.equal(res.status, 422, `expected 422, got ${res.status}: ${res.text.slice(0, 500)}`);
  assert.equal(res.json?.error, "validation_failed");
  assert.equal(typeof res.json?.message, "string");
  const issues = res.json?.issues as Issue[];
  assert.ok(Array.isArray(issues) && issues.length > 0, "422 lists its issues");
  for (const issue of issues) {
    assert.equal(typeof issue.path, "string");
    assert.match(issue.code, /^[a-z][a-z0-9_]*$/, `issue code ${issue.code} is snake_case`);
    assert.ok(issue.message.length > 0, "every issue has a message");
  }
  return issues;
}

/** Asserts that some issue sits at `path` (and has `code`, when given). */
function hasIssue(issues: Issue[], path: string, code?: string): void {
  const found = issues.some((i) => i.path === path && (code === undefined || i.code === code));
  assert.ok(
    found,
    `expected an issue at "${path}"${code ? ` with code ${code}` : ""}; got ${JSON.stringify(issues)}`,
  );
}

function quoteOf(view: Json): {
  price_cents: number;
  line_items: { code: string; amount_cents: number }[];
  bounds: { min_cents: number; max_cents: number };
  subtotal_cents: number;
} {
  return view.quote as never;
}

function assertQuoteConsistent(view: Json): void {
  const q = quoteOf(view);
  assert.ok(Number.isInteger(q.price_cents), "price is integer cents");
  assert.ok(
    q.price_cents >= q.bounds.min_cents && q.price_cents <= q.bounds.max_cents,
    "price within the bounds",
  );
  const sum = q.line_items.reduce((s, l) => s + l.amount_cents, 0);
  assert.equal(sum, q.price_cents, "the line items add up to the price");
}

export type MachineTestName = (typeof MACHINE_TEST_NAMES)[number];

export const MACHINE_TEST_NAMES = [
  "health answers ok",
  "openapi.json is a valid OpenAPI 3.1.0 document listing every operation's responses",
  "well-known x402 manifest lists the paid resources",
  "validate quotes a plain-text letter with its typeset page count",
  "validate answers alike on the x402 and MPP paths",
  "validate gives the same quote for the same input",
  "a long letter flows over more pages and never costs less",
  "a PDF data URL is counted from the PDF itself",
  "certified mail adds its line item",
  "the resolved recipient and sender carry the exact names and lines",
  "postcards are normalised to standard colour double-sided with warnings",
  "a postcard PDF must have exactly two pages",
  "422 lists every problem at once with path and code",
  "unknown top-level properties are rejected",
  "a single order carries exactly one document source",
  "bulk excludes recipient fields and document sources",
  "each party uses exactly one address strategy",
  "address ids carry an allowed country",
  "an address id prints the address it names, not its text",
  "an unknown address id is refused at its field with address_not_found",
  "manual addresses need state for US and CA",
  "manual addresses default to US; only a non-US one must carry countryCode",
  "return receipt options need certified_return_receipt",
  "priority and express do not combine with certified",
  "postcards need postcard_size",
  "request_id must be a uuid and buyer_email an email",
  "letter bounds are enforced",
  "malformed JSON is 400",
  "a wrong content type is 415",
  "a body over the limit is 413",
  "unknown paths are 404 with a JSON error",
  "unpaid x402 create answers 402 with the challenge in PAYMENT-REQUIRED",
  "unpaid MPP create answers 402 problem+json with Payment challenges",
  "status of an unknown order is 404",
  "CORS lets browsers send payment headers and read payment answers",
  "a PDF uploaded as multipart/form-data is used by its upload_token",
  "upload field aliases pdf and pdfFile are accepted",
  "an upload token serves one order only",
  "an unknown upload token is refused on its field",
  "validate returns a signed preview_url that serves the PDF; a tampered link is 403",
  "letter PDFs must be US letter, every page",
  "the form catalogue searches slug, name and aliases and pages with a cursor",
  "a form schema is served by slug or alias; unknown forms are 404",
  "validate with a form generates the packet and counts its pages",
  "form answers are checked with paths under form.fields",
  "out-of-scope form answers are refused before any payment",
  "certified-required forms refuse certified false",
  "letters render every format: text, markdown, html and rtf",
  "postcards must use the bleed canvas, not the trim size",
  "postcards keep the address zone of page 2 free of ink",
  "international postcards show their production route",
  "a bulk campaign validates with a report per row and refuses only when no row is valid",
  "flower letters are quoted after product, ZIP and date checks",
  "flower letters are refused before any 402 when a check fails",
  "unpaid flower letters answer 402 and their status by id",
  "another method on a known path is 405 with Allow",
  "a campaign above the ceiling of one order is refused, saying how many rows fit",
  "an x402 challenge names its order, so its payment cannot pay another",
] as const;

/** An address search id of type Address that the target's address provider knows, with its text. */
export interface KnownAddress {
  id: string;
  text: string;
}

export interface MachineSuiteOptions {
  /**
   * Address ids the target's address provider knows: one in the US and one in Canada, each an id of a suggestion
   * of type Address (the machine API has no search, so the suite cannot find them itself). Default: ids of the
   * sample that ships with @mailpiece/address-embedded, the reference server's default provider
   * (DEFAULT_SUITE_ADDRESSES). `false` for a deployment without address search: Address mode must then be refused
   * with address_mode_unavailable.
   */
  addresses?: { us: KnownAddress; ca: KnownAddress } | false;
}

/**
 * Ids of the sample shipped with @mailpiece/address-embedded (data/sample-us.csv and data/sample-ca.csv), as its
 * search answers them: 350 Fifth Avenue, Suite 3100, New York, and Parliament Hill, 111 Wellington St, Ottawa.
 */
export const DEFAULT_SUITE_ADDRESSES: Readonly<{ us: KnownAddress; ca: KnownAddress }> = Object.freeze({
  us: { id: "US|f00bef0ac591a24c", text: "350 Fifth Avenue, Suite 3100, New York, NY 10118" },
  ca: { id: "CA|07cc6777dd5c40", text: "111 Wellington St, Ottawa, ON K1A 0A9" },
});

/** The order fields that give the recipient by address search id. */
function recipientById(id: string, text: string): Record<string, unknown> {
  return {
    recipient_address_type: "Address",
    recipient_address_manual: undefined,
    recipient_address_id: id,
    recipient_address_text: text,
  };
}

/**
 * The machine-surface HTTP suite: runs in-process or against any deployment. Every response a test receives is
 * checked against the target's own OpenAPI description as well.
 */
export function machineSuite(given: HttpTarget, options: MachineSuiteOptions = {}): Suite<MachineTestName> {
  const target = checkedTarget(given);
  const addresses = options.addresses === undefined ? DEFAULT_SUITE_ADDRESSES : options.addresses;
  let openapiCache: Json | undefined;
  const openapi = async (): Promise<Json> => {
    if (openapiCache) return openapiCache;
    const res = await target.fetch("/openapi.json");
    assert.equal(res.status, 200);
    openapiCache = (await res.json()) as Json;
    return openapiCache;
  };

  const tests: Record<MachineTestName, TestBody> = {
    "health answers ok": async () => {
      const res = await target.fetch("/health");
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as Json).status, "ok");
    },

    "openapi.json is a valid OpenAPI 3.1.0 document listing every operation's responses": async () => {
      const doc = await openapi();
      assert.equal(doc.openapi, "3.1.0");
      const validator = new Validator();
      const result = await validator.validate(doc);
      assert.ok(result.valid, `OpenAPI validation errors: ${JSON.stringify(result).slice(0, 2000)}`);
      const paths = doc.paths as Record<string, Record<string, { responses?: Json }>>;
      for (const p of [VALIDATE, VALIDATE_MPP]) {
        const op = paths[p]?.post;
        assert.ok(op, `${p} is described`);
        for (const status of ["200", "400", "413", "415", "422"]) {
          assert.ok(op.responses?.[status], `${p} lists its ${status} response`);
        }
      }
      for (const [p, item] of Object.entries(paths)) {
        for (const [method, op] of Object.entries(item)) {
          assert.ok(
            op.responses && Object.keys(op.responses).length > 0,
            `${method} ${p} lists its responses`,
          );
        }
      }
    },

    "well-known x402 manifest lists the paid resources": async () => {
      const res = await target.fetch("/.well-known/x402");
      assert.equal(res.status, 200);
      const body = (await res.json()) as Json;
      assert.equal(body.version, 1);
      assert.ok(Array.isArray(body.resources) && body.resources.length > 0);
      for (const r of body.resources as string[]) {
        const url = new URL(r);
        assert.ok(url.pathname.startsWith("/api/machine/"), `${r} is a machine resource`);
      }
      // Every x402 create operation the OpenAPI description publishes is a resource of the manifest.
      const openapi = (await (await target.fetch("/openapi.json")).json()) as { paths: Record<string, Json> };
      const paths = (body.resources as string[]).map((r) => new URL(r).pathname);
      for (const paid of ["/api/machine/orders", "/api/machine/flower-letters"]) {
        if (openapi.paths[paid]?.post) assert.ok(paths.includes(paid), `${paid} is listed in the manifest`);
      }
    },

    "validate quotes a plain-text letter with its typeset page count": async () => {
      const order = letterOrder();
      const view = await validOk(target, order);
      assert.equal(view.valid, true);
      assert.equal(view.request_id, order.request_id);
      const doc = view.document as Json;
      assert.equal(doc.source, "letter");
      assert.equal(doc.page_count, 1);
      assertQuoteConsistent(view);
      const options = view.options as Json;
      assert.equal(options.double_sided, true, "double_sided defaults to true");
      assert.equal(options.color, false, "color defaults to false");
      assert.equal(options.mail_class, "standard");
    },

    "validate answers alike on the x402 and MPP paths": async () => {
      const order = letterOrder();
      const a = await validOk(target, order, VALIDATE);
      const b = await validOk(target, order, VALIDATE_MPP);
      assert.deepEqual(b, a);
    },

    "validate gives the same quote for the same input": async () => {
      const order = letterOrder({ color: true, letter: longBody(12) });
      const a = await validOk(target, order);
      const b = await validOk(target, order);
      assert.deepEqual(b.quote, a.quote);
    },

    "a long letter flows over more pages and never costs less": async () => {
      const short = await validOk(target, letterOrder({ color: true }));
      const long = await validOk(target, letterOrder({ color: true, letter: longBody(60) }));
      const shortPages = (short.document as Json).page_count as number;
      const longPages = (long.document as Json).page_count as number;
      assert.ok(longPages >= 3, `a 60-paragraph letter takes several pages (got ${longPages})`);
      assert.ok(longPages > shortPages);
      assert.ok(quoteOf(long).price_cents >= quoteOf(short).price_cents);
      assertQuoteConsistent(long);
    },

    "a PDF data URL is counted from the PDF itself": async () => {
      for (const pages of [1, 3]) {
        const order = letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(pages)) });
        const view = await validOk(target, order);
        assert.equal((view.document as Json).source, "pdf");
        assert.equal((view.document as Json).page_count, pages);
      }
      const issues = await issuesOf(
        target,
        letterOrder({
          letter: undefined,
          pdf: `data:application/pdf;base64,${Buffer.from("not a pdf").toString("base64")}`,
        }),
      );
      hasIssue(issues, "pdf", "pdf_unreadable");
    },

    "certified mail adds its line item": async () => {
      const plain = await validOk(target, letterOrder({ letter: longBody(30) }));
      const certified = await validOk(target, letterOrder({ letter: longBody(30), certified: true }));
      assert.ok(quoteOf(certified).price_cents > quoteOf(plain).price_cents, "certified costs more");
      assert.ok(
        quoteOf(certified).line_items.some((l) => l.code.includes("certified")),
        "a certified line item explains the difference",
      );
      assertQuoteConsistent(certified);
    },

    "the resolved recipient and sender carry the exact names and lines": async () => {
      const view = await validOk(target, letterOrder());
      const recipient = view.recipient as Json;
      const sender = view.sender as Json;
      assert.equal(recipient.name, "Grace Recipient");
      assert.equal(sender.name, "Zoë Łukasz-Müller");
      assert.equal(recipient.country, "US");
      const lines = recipient.lines as string[];
      assert.ok(lines.includes("1600 Pennsylvania Ave NW"), `recipient lines: ${JSON.stringify(lines)}`);
      assert.ok(lines.some((l) => l.includes("Washington") && l.includes("DC") && l.includes("20500")));
      if (!addresses) return;
      const byId = await validOk(target, letterOrder(recipientById(addresses.ca.id, addresses.ca.text)));
      const canadian = byId.recipient as Json;
      assert.equal(canadian.country, "CA");
      assert.equal(canadian.address_type, "Address");
      assert.equal(canadian.address_id, addresses.ca.id);
      assert.equal((canadian.address as Json | undefined)?.countryCode, "CA");
      assert.equal(
        (canadian.lines as string[]).at(-1),
        "CANADA",
        "an international piece ends with the country",
      );
    },

    "postcards are normalised to standard colour double-sided with warnings": async () => {
      const order = letterOrder({
        letter: undefined,
        mailpiece_type: "postcard",
        postcard_size: "4x6",
        pdf: pdfDataUrl(await makePdf(2, [450, 306])),
        certified: true,
        color: false,
      });
      const view = await validOk(target, order);
      const options = view.options as Json;
      assert.equal(options.mail_class, "standard");
      assert.equal(options.color, true);
      assert.equal(options.double_sided, true);
      assert.equal(options.certified, false);
      const warnings = view.warnings as Issue[];
      assert.ok(
        warnings.some((w) => w.path === "certified"),
        "the dropped certified option is reported",
      );
      assert.ok(
        warnings.some((w) => w.path === "color"),
        "the changed color option is reported",
      );
      assert.equal(view.postcard_size, "4x6");
    },

    "a postcard PDF must have exactly two pages": async () => {
      const issues = await issuesOf(
        target,
        letterOrder({
          letter: undefined,
          mailpiece_type: "postcard",
          postcard_size: "4x6",
          pdf: pdfDataUrl(await makePdf(3, [450, 306])),
        }),
      );
      assert.ok(
        issues.some((i) => i.path === "pdf"),
        JSON.stringify(issues),
      );
    },

    "422 lists every problem at once with path and code": async () => {
      const issues = await issuesOf(
        target,
        letterOrder({
          request_id: "not-a-uuid",
          buyer_email: undefined,
          surprise: true,
          recipient_address_manual: manualAddress({ state: undefined }),
          certified: true,
          mail_class: "express",
        }),
      );
      hasIssue(issues, "request_id");
      hasIssue(issues, "buyer_email");
      hasIssue(issues, "surprise", "unknown_property");
      hasIssue(issues, "recipient_address_manual.state");
      hasIssue(issues, "mail_class");
      assert.ok(issues.length >= 5);
    },

    "unknown top-level properties are rejected": async () => {
      const issues = await issuesOf(target, letterOrder({ colour: true }));
      hasIssue(issues, "colour", "unknown_property");
      const nested = await issuesOf(
        target,
        letterOrder({ recipient_address_manual: manualAddress({ county: "X" }) }),
      );
      hasIssue(nested, "recipient_address_manual.county", "unknown_property");
    },

    "a single order carries exactly one document source": async () => {
      const none = await issuesOf(target, letterOrder({ letter: undefined }));
      assert.ok(
        none.some((i) => i.code === "document_source_required"),
        JSON.stringify(none),
      );
      const two = await issuesOf(target, letterOrder({ pdf: pdfDataUrl(await makePdf(1)) }));
      assert.ok(
        two.some((i) => i.code === "document_source_conflict"),
        JSON.stringify(two),
      );
    },

    "bulk excludes recipient fields and document sources": async () => {
      const issues = await issuesOf(
        target,
        letterOrder({
          bulk: {
            campaign_name: "Spring",
            content_mode: "text",
            template_text: "Hello {{recipient_name}}",
            csv_content: "recipient_name,line1,city,state,zip\nA B,1 Main St,Springfield,IL,62701\n",
          },
        }),
      );
      hasIssue(issues, "recipient_name", "bulk_field_conflict");
      hasIssue(issues, "recipient_address_manual", "bulk_field_conflict");
      hasIssue(issues, "letter", "bulk_field_conflict");
    },

    "each party uses exactly one address strategy": async () => {
      const both = await issuesOf(
        target,
        letterOrder({
          recipient_address_id: "US|123",
          recipient_address_text: "1 Main St, Springfield IL 62701",
        }),
      );
      assert.ok(
        both.some((i) => i.path.startsWith("recipient_address") && i.code === "address_strategy_conflict"),
        JSON.stringify(both),
      );
      const missing = await issuesOf(
        target,
        letterOrder({ recipient_address_type: "Address", recipient_address_manual: undefined }),
      );
      hasIssue(missing, "recipient_address_id", "required");
      hasIssue(missing, "recipient_address_text", "required");
      const manualMissing = await issuesOf(target, letterOrder({ sender_address_manual: undefined }));
      hasIssue(manualMissing, "sender_address_manual", "required");
    },

    "address ids carry an allowed country": async () => {
      const order = letterOrder({
        recipient_address_type: "Address",
        recipient_address_manual: undefined,
        recipient_address_id: "BR|Sao Paulo|1",
        recipient_address_text: "Av. Paulista 1, São Paulo, Brazil",
      });
      hasIssue(await issuesOf(target, order), "recipient_address_id", "address_country_not_allowed");
      const malformed = { ...order, recipient_address_id: "no-bar-here" };
      hasIssue(await issuesOf(target, malformed), "recipient_address_id", "invalid_address_id");
    },

    "an address id prints the address it names, not its text": async () => {
      // A text that names another place: what prints must come from the id alone.
      const decoy = "1 Decoy Lane, Nowhereville, ZZ 00000";
      if (!addresses) {
        const issues = await issuesOf(
          target,
          letterOrder(recipientById(DEFAULT_SUITE_ADDRESSES.us.id, decoy)),
        );
        hasIssue(issues, "recipient_address_id", "address_mode_unavailable");
        return;
      }
      for (const [known, country] of [
        [addresses.us, "US"],
        [addresses.ca, "CA"],
      ] as const) {
        await validOk(target, letterOrder(recipientById(known.id, known.text)));
        const view = await validOk(target, letterOrder(recipientById(known.id, decoy)));
        const recipient = view.recipient as Json;
        const address = recipient.address as Record<string, string> | undefined;
        const lines = recipient.lines as string[];
        assert.ok(address, `the recipient shows the address ${known.id} names: ${JSON.stringify(recipient)}`);
        assert.equal(recipient.address_text, decoy, "the text is shown back as it was sent");
        assert.equal(address.countryCode, country);
        assert.equal(lines[0], "Grace Recipient");
        assert.equal(
          lines[1],
          address.line1,
          `the first address line is the address's: ${JSON.stringify(lines)}`,
        );
        const { city = "", zip = "" } = address;
        const locality = lines.find((l) => l.includes(city) && l.includes(zip));
        assert.ok(locality, `a line holds the city and the postal code: ${JSON.stringify(lines)}`);
        assert.ok(!lines.some((l) => /Decoy|Nowhereville/.test(l)), `the text does not print: ${lines}`);
      }
      // A sender given by id resolves alike.
      const sender = await validOk(
        target,
        letterOrder({
          sender_address_type: "Address",
          sender_address_manual: undefined,
          sender_address_id: addresses.us.id,
          sender_address_text: decoy,
        }),
      );
      const senderView = sender.sender as Json;
      assert.equal((senderView.address as Json | undefined)?.countryCode, "US");
      assert.ok(
        !(senderView.lines as string[]).some((l) => l.includes("Decoy")),
        "the sender's text does not print",
      );
    },

    "an unknown address id is refused at its field with address_not_found": async () => {
      const unknown = letterOrder({
        ...recipientById("US|no-such-address", "1 Main St, Springfield, IL 62701"),
        colour: true,
      });
      const issues = await issuesOf(target, unknown);
      hasIssue(issues, "recipient_address_id", addresses ? "address_not_found" : "address_mode_unavailable");
      // Reported with the request's other problems, not one at a time.
      hasIssue(issues, "colour", "unknown_property");
      if (!addresses) return;
      const both = await issuesOf(
        target,
        letterOrder({
          ...recipientById("CA|no-such-address", addresses.ca.text),
          sender_address_type: "Address",
          sender_address_manual: undefined,
          sender_address_id: "US|no-such-address",
          sender_address_text: addresses.us.text,
        }),
      );
      hasIssue(both, "recipient_address_id", "address_not_found");
      hasIssue(both, "sender_address_id", "address_not_found");
    },

    "manual addresses need state for US and CA": async () => {
      hasIssue(
        await issuesOf(
          target,
          letterOrder({ recipient_address_manual: manualAddress({ state: undefined }) }),
        ),
        "recipient_address_manual.state",
        "state_required",
      );
      hasIssue(
        await issuesOf(
          target,
          letterOrder({
            recipient_address_manual: {
              line1: "150 Wellington St",
              city: "Ottawa",
              zip: "K1A 0A9",
              countryCode: "CA",
            },
          }),
        ),
        "recipient_address_manual.state",
        "state_required",
      );
      await validOk(
        target,
        letterOrder({
          recipient_address_manual: {
            line1: "Unter den Linden 77",
            city: "Berlin",
            zip: "10117",
            countryCode: "DE",
          },
          sender_address_manual: manualAddress({
            line1: "350 Fifth Avenue",
            city: "New York",
            state: "NY",
            zip: "10118",
            countryCode: "US",
          }),
        }),
      );
    },

    "manual addresses default to US; only a non-US one must carry countryCode": async () => {
      await validOk(
        target,
        letterOrder({
          recipient_address_manual: {
            line1: "Unter den Linden 77",
            city: "Berlin",
            zip: "10117",
            countryCode: "DE",
          },
          sender_address_manual: { line1: "350 Fifth Avenue", city: "New York", state: "NY", zip: "10118" },
        }),
      );
      const canadian = await issuesOf(
        target,
        letterOrder({
          recipient_address_manual: {
            line1: "111 Wellington St",
            city: "Ottawa",
            state: "ON",
            zip: "K1A 0A9",
          },
        }),
      );
      hasIssue(canadian, "recipient_address_manual.countryCode", "country_code_required");
      const notAllowed = await issuesOf(
        target,
        letterOrder({
          recipient_address_manual: {
            line1: "Av. Paulista 1",
            city: "São Paulo",
            zip: "01310-000",
            countryCode: "BR",
          },
        }),
      );
      hasIssue(notAllowed, "recipient_address_manual.countryCode");
    },

    "return receipt options need certified_return_receipt": async () => {
      hasIssue(
        await issuesOf(target, letterOrder({ certified: true, return_receipt_format: "physical" })),
        "return_receipt_format",
        "requires_certified_return_receipt",
      );
      hasIssue(
        await issuesOf(target, letterOrder({ certified: true, restricted_delivery: true })),
        "restricted_delivery",
        "requires_certified_return_receipt",
      );
      await validOk(
        target,
        letterOrder({
          certified: true,
          certified_return_receipt: true,
          return_receipt_format: "physical",
          restricted_delivery: true,
        }),
      );
    },

    "priority and express do not combine with certified": async () => {
      for (const mail_class of ["priority", "express"]) {
        hasIssue(
          await issuesOf(target, letterOrder({ certified: true, mail_class })),
          "mail_class",
          "mail_class_certified_conflict",
        );
      }
      await validOk(target, letterOrder({ mail_class: "priority" }));
    },

    "postcards need postcard_size": async () => {
      const issues = await issuesOf(
        target,
        letterOrder({
          letter: undefined,
          mailpiece_type: "postcard",
          pdf: pdfDataUrl(await makePdf(2, [450, 306])),
        }),
      );
      hasIssue(issues, "postcard_size", "postcard_size_required");
    },

    "request_id must be a uuid and buyer_email an email": async () => {
      const issues = await issuesOf(target, letterOrder({ request_id: "42", buyer_email: "not-an-email" }));
      hasIssue(issues, "request_id", "invalid_format");
      hasIssue(issues, "buyer_email", "invalid_format");
      hasIssue(await issuesOf(target, letterOrder({ request_id: undefined })), "request_id", "required");
    },

    "letter bounds are enforced": async () => {
      hasIssue(await issuesOf(target, letterOrder({ letter: "x".repeat(20001) })), "letter", "too_long");
      hasIssue(await issuesOf(target, letterOrder({ letter: "" })), "letter", "too_short");
      const render = await issuesOf(
        target,
        letterOrder({
          letter: { body: "Hi", title: "t".repeat(201), render: { font_size: 20, font: "comic" } },
        }),
      );
      hasIssue(render, "letter.title", "too_long");
      hasIssue(render, "letter.render.font_size", "out_of_range");
      hasIssue(render, "letter.render.font", "invalid_enum");
    },

    "malformed JSON is 400": async () => {
      const res = await post(target, VALIDATE, '{"request_id": ');
      assert.equal(res.status, 400);
      assert.equal(res.json?.error, "invalid_json");
    },

    "a wrong content type is 415": async () => {
      const res = await post(target, VALIDATE, JSON.stringify(letterOrder()), {
        "content-type": "text/plain",
      });
      assert.equal(res.status, 415);
      assert.equal(res.json?.error, "unsupported_media_type");
    },

    "a body over the limit is 413": async () => {
      const doc = await openapi();
      const op = (doc.paths as Record<string, Record<string, { requestBody?: Json }>>)[VALIDATE]?.post;
      const limit = op?.requestBody?.["x-max-body-bytes"];
      assert.equal(
        typeof limit,
        "number",
        "the OpenAPI description states the body limit (x-max-body-bytes)",
      );
      const body = JSON.stringify(letterOrder({ file_name: "a".repeat((limit as number) + 1) }));
      const res = await post(target, VALIDATE, body);
      assert.equal(res.status, 413);
      assert.equal(res.json?.error, "payload_too_large");
    },

    "unpaid x402 create answers 402 with the challenge in PAYMENT-REQUIRED": async () => {
      const order = letterOrder({ letter: `Conformance ${crypto.randomUUID()}` });
      const res = await post(target, "/api/machine/orders", order);
      assert.equal(res.status, 402, res.text.slice(0, 300));
      const header = res.headers.get("payment-required");
      assert.ok(header, "PAYMENT-REQUIRED header");
      const required = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Json;
      assert.equal(required.x402Version, 2);
      const accepts = required.accepts as Json[];
      assert.ok(accepts.length > 0);
      const quote = quoteOf(await validOk(target, order));
      const first = accepts[0]!;
      assert.equal(first.scheme, "exact");
      assert.match(String(first.network), /^eip155:\d+$/);
      // USDC has 6 decimals: cents * 10^4 atomic units.
      assert.equal(first.amount, String(quote.price_cents * 10_000));
      assert.ok((res.json?.order as Json | undefined)?.order_id, "the 402 body names the unpaid order");
      assert.match(String(res.headers.get("access-control-expose-headers")), /PAYMENT-REQUIRED/i);
      const status = await target.fetch(`/api/machine/orders/${order.request_id}`);
      assert.equal(status.status, 200);
      assert.equal(((await status.json()) as Json).payment_status, "unpaid");
    },

    "unpaid MPP create answers 402 problem+json with Payment challenges": async () => {
      const res = await post(
        target,
        "/api/machine/mpp/orders",
        letterOrder({ letter: `Conformance ${crypto.randomUUID()}` }),
      );
      assert.equal(res.status, 402, res.text.slice(0, 300));
      assert.match(String(res.headers.get("content-type")), /application\/problem\+json/);
      const challenge = String(res.headers.get("www-authenticate"));
      assert.match(challenge, /^Payment /);
      for (const param of ["id", "realm", "method", "intent", "request", "expires"]) {
        assert.match(challenge, new RegExp(`${param}="`), `challenge carries ${param}`);
      }
      assert.equal(res.json?.status, 402);
      assert.match(String(res.json?.type), /payment-required/);
    },

    "status of an unknown order is 404": async () => {
      for (const path of [
        `/api/machine/orders/${crypto.randomUUID()}`,
        `/api/machine/mpp/orders/${crypto.randomUUID()}`,
      ]) {
        const res = await target.fetch(path);
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as Json).error, "not_found");
      }
    },

    "CORS lets browsers send payment headers and read payment answers": async () => {
      const res = await target.fetch("/api/machine/orders", {
        method: "OPTIONS",
        headers: {
          origin: "https://agent.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, payment-signature",
        },
      });
      assert.ok(res.status === 204 || res.status === 200, `preflight status ${res.status}`);
      const allowed = String(res.headers.get("access-control-allow-headers")).toLowerCase();
      assert.ok(allowed.includes("payment-signature") && allowed.includes("authorization"));
      const exposed = String(res.headers.get("access-control-expose-headers")).toLowerCase();
      for (const h of ["payment-required", "payment-response", "www-authenticate", "payment-receipt"]) {
        assert.ok(exposed.includes(h), `${h} is exposed`);
      }
    },

    "a PDF uploaded as multipart/form-data is used by its upload_token": async () => {
      const slot = await post(target, "/api/machine/uploads", {
        file_name: "letter.pdf",
        content_type: "application/pdf",
        content_length: 50_000,
      });
      assert.equal(slot.status, 201, slot.text.slice(0, 300));
      const token = slot.json?.upload_token as string;
      assert.match(token, /^upl_/);
      assert.ok(Number(slot.json?.max_bytes) >= 1);
      const uploadPath = new URL(slot.json?.upload_url as string).pathname;
      const form = new FormData();
      form.append(
        "file",
        new Blob([Buffer.from(await makePdf(3))], { type: "application/pdf" }),
        "letter.pdf",
      );
      const filled = await target.fetch(uploadPath, { method: "POST", body: form });
      assert.equal(filled.status, 201, await filled.clone().text());
      const view = await validOk(target, letterOrder({ letter: undefined, pdf: { upload_token: token } }));
      assert.equal((view.document as Json).page_count, 3);
      const again = await target.fetch(uploadPath, { method: "POST", body: form });
      assert.equal(again.status, 422, "a slot is filled once");
    },

    "upload field aliases pdf and pdfFile are accepted": async () => {
      for (const field of ["pdf", "pdfFile"]) {
        const form = new FormData();
        form.append(field, new Blob([Buffer.from(await makePdf(2))], { type: "application/pdf" }), "x.pdf");
        const res = await target.fetch("/api/machine/uploads", { method: "POST", body: form });
        assert.equal(res.status, 201, `field ${field}`);
        const token = ((await res.json()) as Json).upload_token as string;
        const view = await validOk(target, letterOrder({ letter: undefined, pdf: { upload_token: token } }));
        assert.equal((view.document as Json).page_count, 2);
      }
      const notPdf = new FormData();
      notPdf.append("file", new Blob(["hello"], { type: "text/plain" }), "x.txt");
      const refused = await target.fetch("/api/machine/uploads", { method: "POST", body: notPdf });
      assert.equal(refused.status, 422);
    },

    "an upload token serves one order only": async () => {
      const form = new FormData();
      form.append("file", new Blob([Buffer.from(await makePdf(1))], { type: "application/pdf" }), "x.pdf");
      const token = (
        (await (await target.fetch("/api/machine/uploads", { method: "POST", body: form })).json()) as Json
      ).upload_token as string;
      const first = await post(
        target,
        "/api/machine/orders",
        letterOrder({ letter: undefined, pdf: { upload_token: token } }),
      );
      assert.equal(first.status, 402, first.text.slice(0, 300));
      const second = await post(
        target,
        "/api/machine/orders",
        letterOrder({ letter: undefined, pdf: { upload_token: token } }),
      );
      assert.equal(second.status, 422, second.text.slice(0, 300));
      hasIssue(second.json?.issues as Issue[], "pdf.upload_token", "upload_token_used");
    },

    "an unknown upload token is refused on its field": async () => {
      hasIssue(
        await issuesOf(target, letterOrder({ letter: undefined, pdf: { upload_token: "upl_unknown" } })),
        "pdf.upload_token",
        "upload_token_invalid",
      );
    },

    "validate returns a signed preview_url that serves the PDF; a tampered link is 403": async () => {
      const view = await validOk(target, letterOrder({ letter: `Preview ${crypto.randomUUID()}` }));
      const url = new URL(view.preview_url as string);
      const res = await target.fetch(`${url.pathname}${url.search}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/pdf");
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.equal(Buffer.from(bytes.subarray(0, 5)).toString(), "%PDF-");
      const sig = url.searchParams.get("sig")!;
      const tampered = new URL(url);
      tampered.searchParams.set("sig", `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`);
      assert.equal((await target.fetch(`${tampered.pathname}${tampered.search}`)).status, 403);
      const later = new URL(url);
      later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
      assert.equal(
        (await target.fetch(`${later.pathname}${later.search}`)).status,
        403,
        "a longer expiry is a tampered link",
      );
    },

    "letter PDFs must be US letter, every page": async () => {
      const a4 = await issuesOf(
        target,
        letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(1, [595.28, 841.89])) }),
      );
      hasIssue(a4, "pdf", "pdf_page_size_unsupported");
      const { PDFDocument } = await import("pdf-lib");
      const doc = await PDFDocument.create();
      doc.addPage([612, 792]);
      doc.addPage([612, 792]);
      doc.addPage([595.28, 841.89]);
      const mixed = await issuesOf(
        target,
        letterOrder({ letter: undefined, pdf: pdfDataUrl(await doc.save()) }),
      );
      hasIssue(mixed, "pdf", "inconsistent_page_dimensions");
      assert.ok(
        mixed.some((i) => i.message.includes("Page 3")),
        "the message names the page",
      );
    },

    "the form catalogue searches slug, name and aliases and pages with a cursor": async () => {
      const all = await target.fetch("/api/machine/forms");
      assert.equal(all.status, 200);
      const list = (await all.json()) as { forms: Json[]; next_cursor: string | null };
      const slugs = list.forms.map((f) => f.slug);
      for (const slug of [
        "mortgage-servicing-error-packet",
        "bank-fraud-unauthorized-transfer-dispute",
        "court-document-mailing-packets",
      ]) {
        assert.ok(slugs.includes(slug), `${slug} is listed`);
      }
      const byAlias = (await (await target.fetch("/api/machine/forms?q=respa")).json()) as { forms: Json[] };
      assert.deepEqual(
        byAlias.forms.map((f) => f.slug),
        ["mortgage-servicing-error-packet"],
      );
      const first = (await (await target.fetch("/api/machine/forms?limit=1")).json()) as {
        forms: Json[];
        next_cursor: string;
      };
      assert.equal(first.forms.length, 1);
      assert.ok(first.next_cursor, "a cursor to the next page");
      const second = (await (
        await target.fetch(`/api/machine/forms?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`)
      ).json()) as {
        forms: Json[];
      };
      assert.notEqual(second.forms[0]?.slug, first.forms[0]?.slug);
      for (const bad of ["limit=0", "limit=201", "limit=abc", "cursor=%00nonsense"]) {
        assert.equal((await target.fetch(`/api/machine/forms?${bad}`)).status, 400, bad);
      }
    },

    "a form schema is served by slug or alias; unknown forms are 404": async () => {
      const res = await target.fetch("/api/machine/forms/mortgage-notice-of-error/schema");
      assert.equal(res.status, 200);
      const schema = (await res.json()) as Json;
      assert.equal(schema.slug, "mortgage-servicing-error-packet");
      for (const key of ["fields", "dependencies", "attachments", "attachments_max_total_size_mb"]) {
        assert.ok(key in schema, `schema has ${key}`);
      }
      assert.equal(schema.attachments_max_total_size_mb, 12);
      assert.equal((await target.fetch("/api/machine/forms/no-such-form/schema")).status, 404);
    },

    "validate with a form generates the packet and counts its pages": async () => {
      const view = await validOk(target, mortgageFormOrder());
      const doc = view.document as Json;
      assert.equal(doc.source, "form");
      assert.ok((doc.page_count as number) >= 1);
      assert.equal((view.recipient as Json).name, "Acme Mortgage Servicing, Notice of Error Department");
      const mismatch = await validOk(
        target,
        mortgageFormOrder(mortgageFormFields(), { recipient_name: "Someone Else" }),
      );
      assert.equal((mismatch.recipient as Json).name, "Someone Else", "the top-level envelope wins");
      assert.ok((mismatch.warnings as Issue[]).some((w) => w.code === "form_recipient_mismatch"));
    },

    "form answers are checked with paths under form.fields": async () => {
      const fields = mortgageFormFields();
      delete fields.error_description;
      fields.mortgage_account_number = "12";
      const issues = await issuesOf(target, mortgageFormOrder(fields));
      hasIssue(issues, "form.fields.error_description", "required");
      hasIssue(issues, "form.fields.mortgage_account_number", "too_short");
      const unknown = await issuesOf(
        target,
        mortgageFormOrder(mortgageFormFields(), { form: { slug: "nope", fields: {} } }),
      );
      hasIssue(unknown, "form.slug", "form_unknown");
    },

    "out-of-scope form answers are refused before any payment": async () => {
      const fields = { ...mortgageFormFields(), foreclosure_sale_scheduled: "Yes" };
      const issues = await issuesOf(target, mortgageFormOrder(fields));
      assert.ok(
        issues.some((i) => i.code.includes("foreclosure_sale_scheduled")),
        `a code naming the answer: ${JSON.stringify(issues)}`,
      );
      const create = await post(target, "/api/machine/orders", mortgageFormOrder(fields));
      assert.equal(create.status, 422, "refused before the 402");
    },

    "certified-required forms refuse certified false": async () => {
      const issues = await issuesOf(target, mortgageFormOrder(mortgageFormFields(), { certified: false }));
      hasIssue(issues, "certified", "certified_required");
    },

    "letters render every format: text, markdown, html and rtf": async () => {
      const bodies: Record<string, string> = {
        text: "Dear Grace,\n\nThank you.",
        markdown: "# Thank you\n\nDear **Grace**,\n\n- one\n- two",
        html: "<h1>Thank you</h1><p>Dear <b>Grace</b>,</p><script>alert(1)</script><ul><li>one</li></ul>",
        rtf: "{\\rtf1\\ansi {\\b Dear Grace,}\\par Thank you.}",
      };
      for (const [format, body] of Object.entries(bodies)) {
        const view = await validOk(target, letterOrder({ letter: { body, format } }));
        assert.equal((view.document as Json).format, format);
        assert.equal((view.document as Json).page_count, 1);
      }
    },

    "postcards must use the bleed canvas, not the trim size": async () => {
      const issues = await issuesOf(
        target,
        letterOrder({
          letter: undefined,
          mailpiece_type: "postcard",
          postcard_size: "4x6",
          pdf: pdfDataUrl(await makePdf(2, [432, 288])),
        }),
      );
      hasIssue(issues, "pdf", "postcard_canvas_mismatch");
      assert.ok(
        issues.some((i) => /trim/i.test(i.message)),
        "the message says trim size instead of bleed",
      );
    },

    "postcards keep the address zone of page 2 free of ink": async () => {
      const { PDFDocument, rgb } = await import("pdf-lib");
      const doc = await PDFDocument.create();
      doc
        .addPage([450, 306])
        .drawRectangle({ x: 0, y: 0, width: 450, height: 306, color: rgb(0.2, 0.4, 0.8) });
      doc.addPage([450, 306]).drawRectangle({ x: 250, y: 60, width: 60, height: 40, color: rgb(0, 0, 0) });
      const issues = await issuesOf(
        target,
        letterOrder({
          letter: undefined,
          mailpiece_type: "postcard",
          postcard_size: "4x6",
          pdf: pdfDataUrl(await doc.save()),
        }),
      );
      hasIssue(issues, "pdf", "postcard_address_zone_not_empty");
      assert.ok(
        issues.some((i) => i.message.includes("Page 2")),
        "the message names the page",
      );
    },

    "international postcards show their production route": async () => {
      const card = pdfDataUrl(await makePdf(2, [666, 450]));
      const view = await validOk(
        target,
        letterOrder({
          letter: undefined,
          mailpiece_type: "postcard",
          postcard_size: "6x9",
          pdf: card,
          recipient_address_manual: {
            line1: "Unter den Linden 77",
            city: "Berlin",
            zip: "10117",
            countryCode: "DE",
          },
          sender_address_manual: {
            line1: "350 Fifth Avenue",
            city: "New York",
            state: "NY",
            zip: "10118",
            countryCode: "US",
          },
        }),
      );
      assert.equal((view.postcard_route as Json).route, "international_second");
    },

    "a bulk campaign validates with a report per row and refuses only when no row is valid": async () => {
      const base = letterOrder();
      for (const key of ["recipient_name", "recipient_address_type", "recipient_address_manual", "letter"])
        delete base[key];
      const csv = [
        "recipient_name,line1,city,state,zip,note",
        "Ada Lovelace,1 Main St,Springfield,IL,62701,tea",
        "Grace Hopper,2 Oak Ave,Arlington,VA,22201,coffee",
        "No Address,,Springfield,IL,62701,",
        "Bad Zip,3 Elm St,Springfield,IL,ABCDE,",
      ].join("\n");
      const view = await validOk(target, {
        ...base,
        bulk: {
          campaign_name: "Thanks",
          content_mode: "text",
          template_text: "Dear {{recipient_name}},\n\nThank you for the {{note}}.",
          csv_content: csv,
        },
      });
      assert.equal(view.object, "campaign_validation");
      const bulk = view.bulk as Json;
      assert.equal(bulk.recipient_count, 2);
      assert.equal(bulk.content_mode, "text");
      const rows = view.rows as {
        row_number: number;
        status: string;
        errors: { column: string; code: string }[];
      }[];
      assert.deepEqual(
        rows.map((r) => r.status),
        ["valid", "valid", "invalid", "invalid"],
      );
      assert.ok(
        rows[2]!.errors.some((e) => e.column === "line1"),
        JSON.stringify(rows[2]),
      );
      assert.ok(
        rows[3]!.errors.some((e) => e.column === "zip"),
        JSON.stringify(rows[3]),
      );
      assert.equal((view.quote as { pieces: number }).pieces, 2);
      const none = await issuesOf(target, {
        ...base,
        bulk: {
          content_mode: "text",
          template_text: "Hi",
          csv_content: "recipient_name,line1,city,state,zip\nX,,,,\n",
        },
      });
      assert.ok(
        none.some((i) => i.code === "campaign_no_valid_rows"),
        JSON.stringify(none),
      );
    },

    "flower letters are quoted after product, ZIP and date checks": async () => {
      const view = await validOk(target, flowerLetterRequest(), "/api/machine/flower-letters/validate");
      const quote = view.quote as { total_cents: number; bounds: { min_cents: number; max_cents: number } };
      assert.ok(quote.total_cents >= 100 && quote.total_cents <= 25_000, "within 1.00-250.00");
      const mpp = await validOk(target, flowerLetterRequest(), "/api/machine/mpp/flower-letters/validate");
      assert.equal((mpp.quote as Json).currency, "usd");
    },

    "flower letters are refused before any 402 when a check fails": async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ note: "x".repeat(201) }, "note"],
        [{ product_code: "no-such-bouquet" }, "product_code"],
      ];
      for (const [change, path] of cases) {
        const res = await post(target, "/api/machine/flower-letters", flowerLetterRequest(change));
        assert.equal(res.status, 422, `${path}: ${res.text.slice(0, 200)}`);
        assert.ok(
          ((res.json?.issues ?? []) as Issue[]).some((i) => i.path === path),
          `an issue at ${path}: ${res.text.slice(0, 300)}`,
        );
      }
      const past = await post(
        target,
        "/api/machine/flower-letters",
        flowerLetterRequest({ delivery_date: "2020-01-01" }),
      );
      assert.equal(past.status, 422);
    },

    "unpaid flower letters answer 402 and their status by id": async () => {
      const request = flowerLetterRequest();
      const res = await post(target, "/api/machine/flower-letters", request);
      assert.equal(res.status, 402, res.text.slice(0, 300));
      assert.ok(res.headers.get("payment-required"));
      const status = await target.fetch(`/api/machine/flower-letters/${request.request_id}`);
      assert.equal(status.status, 200);
      assert.equal(((await status.json()) as Json).payment_status, "unpaid");
      assert.equal((await target.fetch(`/api/machine/flower-letters/${crypto.randomUUID()}`)).status, 404);
    },

    "another method on a known path is 405 with Allow": async () => {
      for (const [method, path] of [
        ["GET", "/api/machine/orders"],
        ["DELETE", "/api/machine/orders/validate"],
        ["PUT", "/api/machine/forms"],
      ] as const) {
        const res = await target.fetch(path, { method });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.ok(res.headers.get("allow"), `${method} ${path} says which methods it answers`);
        assert.equal(((await res.json()) as Json).error, "method_not_allowed");
      }
    },

    "a campaign above the ceiling of one order is refused, saying how many rows fit": async () => {
      const base = letterOrder();
      for (const key of ["recipient_name", "recipient_address_type", "recipient_address_manual", "letter"])
        delete base[key];
      const rows = Array.from(
        { length: 100 },
        (_, i) => `Person ${i + 1},${i + 1} Main St,Springfield,IL,62701`,
      );
      const issues = await issuesOf(target, {
        ...base,
        bulk: {
          content_mode: "text",
          template_text: "Dear {{recipient_name}},\n\nThank you.",
          csv_content: ["recipient_name,line1,city,state,zip", ...rows].join("\n"),
        },
      });
      hasIssue(issues, "bulk.csv_content", "campaign_above_ceiling");
      assert.match(
        issues.find((i) => i.code === "campaign_above_ceiling")!.message,
        /The first \d+ valid rows/,
      );
    },

    "an x402 challenge names its order, so its payment cannot pay another": async () => {
      const spec = await openapi();
      if (!(spec.paths as Json)["/api/machine/orders"])
        return notApplicable(
          "the deployment's OpenAPI description has no /api/machine/orders (no x402 orders)",
        );
      const order = letterOrder({ letter: `Conformance ${crypto.randomUUID()}` });
      const res = await post(target, "/api/machine/orders", order);
      assert.equal(res.status, 402, res.text.slice(0, 300));
      const required = JSON.parse(
        Buffer.from(res.headers.get("payment-required")!, "base64").toString(),
      ) as Json;
      const orderId = String(((res.json?.order ?? {}) as Json).order_id);
      const accepted = (required.accepts as Json[])[0]!;
      assert.equal(
        (accepted.extra as Json).order_id,
        orderId,
        "the requirement's extra.order_id is the order",
      );
      assert.ok(
        String((required.resource as Json).url).includes(orderId),
        "the resource URL names the order",
      );
    },

    "unknown paths are 404 with a JSON error": async () => {
      const res = await target.fetch("/api/machine/nothing-here");
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as Json).error, "not_found");
    },
  };

  return {
    name: `machine API (${target.label})`,
    sideEffects:
      "creates unpaid orders, flower letters and uploads only; pays for nothing, so nothing is printed or mailed",
    tests: MACHINE_TEST_NAMES.map((name) => ({
      name,
      requirement: MACHINE_REQUIREMENTS[name],
      run: tests[name],
    })),
  };
}
