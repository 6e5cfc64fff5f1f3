import type { Issue } from "@mailpiece/errors";
import { parseCreateOrderBody } from "@mailpiece/orders";
import { CoreError } from "../errors.ts";
import { createProjectOrder, type ProjectOrderContext } from "../projects/orders.ts";
import {
  createQuote,
  loadQuote,
  type ProjectQuoteContext,
  type ProjectQuoteRecord,
} from "../projects/quotes.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import type { DraftType, SendBody } from "./draft-types.ts";

/**
 * Drafts of letters and postcards: the body of POST /letters or /postcards ({quote_id, recipient, sender,
 * metadata}). A body is valid when it parses as an order body and its quote is one of the workspace's, of this kind,
 * unused and unexpired, for the recipient's and the sender's countries. Its price is its quote's; a refresh asks
 * for a new quote of the same document and options; the send is the order use case itself.
 */
export function orderDraftType(
  ctx: ProjectOrderContext & ProjectQuoteContext,
  kind: "letter" | "postcard",
): DraftType {
  const storedQuote = (principal: Principal, body: SendBody) =>
    typeof body.quote_id === "string" ? loadQuote(ctx, principal, body.quote_id) : Promise.resolve(undefined);
  return {
    async validate(principal, body) {
      const parsed = parseCreateOrderBody(body, {});
      if (!parsed.ok) return parsed.issues;
      const quote = await loadQuote(ctx, principal, parsed.value.quote_id);
      const issues: Issue[] = [];
      const at = (path: string, code: string, message: string) => issues.push({ path, code, message });
      if (!quote) at("quote_id", "quote_not_found", "No quote of this workspace has this id.");
      else if (quote.mailpiece_type !== kind) {
        at("quote_id", "quote_kind_mismatch", `This is a ${quote.mailpiece_type} quote, not a ${kind} one.`);
      } else if (quote.used_by !== undefined) {
        at("quote_id", "quote_used", "This quote was used by an order; request a new quote.");
      } else if (quote.expires_at <= ctx.clock.now()) {
        at("quote_id", "quote_expired", "This quote has expired; request a new quote or refresh the draft.");
      } else {
        const { recipient, sender } = parsed.value;
        if (recipient.address.countryCode !== quote.destination_country_code) {
          at(
            "recipient.countryCode",
            "destination_mismatch",
            `The quote is for mail to ${quote.destination_country_code}, not ${recipient.address.countryCode}.`,
          );
        }
        if (!sender) at("sender", "required", "A sender is required: the envelope's return address.");
        else if (sender.address.countryCode !== quote.origin_country_code) {
          at(
            "sender.countryCode",
            "origin_mismatch",
            `The quote is for mail from ${quote.origin_country_code}, not ${sender.address.countryCode}.`,
          );
        }
      }
      return issues;
    },

    async price(principal, body) {
      const quote = await storedQuote(principal, body);
      if (!quote) throw new CoreError("internal_error", "A validated draft names no quote.");
      return {
        price_cents: quote.view.price_cents,
        currency: "usd",
        quote_id: quote.id,
        quote_expires_at: quote.expires_at,
      };
    },

    async requote(principal, body) {
      const quote = await storedQuote(principal, body);
      if (!quote) {
        throw new CoreError("validation_failed", "The draft's quote is no longer kept.", {
          issues: [
            {
              path: "quote_id",
              code: "quote_not_found",
              message: "The draft's quote is no longer kept: save a revision with a new quote_id.",
            },
          ],
        });
      }
      const fresh = await createQuote(ctx, principal, kind, quoteRequestOf(quote)).catch((error: unknown) => {
        if (!(CoreError.isInstance(error) && error.code === "validation_failed")) throw error;
        // The quote request is the draft's own, not the caller's: its problems are the quote's.
        throw new CoreError("validation_failed", "The draft's document and options cannot be quoted again.", {
          issues: error.issues.map((issue) => ({
            path: "quote_id",
            code: issue.code,
            message: `The quote cannot be renewed: ${issue.message}`,
          })),
        });
      });
      return { ...body, quote_id: fresh.quote_id };
    },

    send: (principal, body, idempotencyKey) => createProjectOrder(ctx, principal, kind, body, idempotencyKey),
  };
}

/**
 * The quote request that quotes `quote`'s document with its options again: every option as the quote resolved it,
 * the optional ones only when they are set (so that no rule refuses an option that was off).
 */
export function quoteRequestOf(quote: ProjectQuoteRecord): Record<string, unknown> {
  const base = {
    document_id: quote.document_id,
    page_count: quote.page_count,
    destination_country_code: quote.destination_country_code,
    origin_country_code: quote.origin_country_code,
  };
  if (quote.mailpiece_type === "postcard") return { ...base, postcard_size: quote.postcard_size };
  const o = quote.options;
  return {
    ...base,
    mail_class: o.mail_class,
    color: o.color,
    double_sided: o.double_sided,
    standalone_address_page: quote.standalone_address_page,
    ...(o.certified ? { certified: true } : {}),
    ...(o.certified_return_receipt
      ? {
          certified_return_receipt: true,
          return_receipt_format: o.return_receipt_format,
          ...(o.restricted_delivery ? { restricted_delivery: true } : {}),
        }
      : {}),
    ...(o.err_delivery === "email"
      ? { err_delivery: "email", ...(o.err_email ? { err_email: o.err_email } : {}) }
      : {}),
    ...(o.signature_required ? { signature_required: true } : {}),
  };
}
