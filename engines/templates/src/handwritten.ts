import { createSchemaCheck, type ProjectsParse, type SchemaCheck } from "@mailpiece/orders";
import {
  DEFAULT_HANDWRITING_STYLE,
  HANDWRITING_STYLE_FACES,
  HANDWRITING_STYLES,
  type HandwritingStyle,
} from "@mailpiece/typesetter/light";
import Type, { type Static } from "typebox";
import { isRecord } from "./is-record.ts";
import { TEMPLATE_LIMITS } from "./limits.ts";

const styleList = HANDWRITING_STYLES.map(
  (style) => `${style} (${HANDWRITING_STYLE_FACES[style].typeface})`,
).join(", ");

/**
 * The fields of a handwritten request this engine checks: the message and the style. The addresses and any other
 * field of POST /api/v1/handwritten are the core's (its address rules); compose them with these.
 */
export const HandwrittenFields = {
  message: Type.String({
    minLength: 1,
    maxLength: TEMPLATE_LIMITS.handwritten_message_chars,
    description: `The message, written by hand on one page: 1 to ${TEMPLATE_LIMITS.handwritten_message_chars} characters, not blank. Line breaks and blank lines are kept. A message that still does not fit the page (many short lines) is refused with message_too_long_for_card, never cut.`,
  }),
  style: Type.Optional(
    Type.Unsafe<HandwritingStyle>({
      type: "string",
      enum: [...HANDWRITING_STYLES],
      default: DEFAULT_HANDWRITING_STYLE,
      description: `The handwriting: ${styleList}. Default ${DEFAULT_HANDWRITING_STYLE}.`,
    }),
  ),
};

/** The part of a handwritten request this engine checks; other properties are allowed here (the core's). */
export const HandwrittenMessage = Type.Object(HandwrittenFields, {
  title: "HandwrittenMessage",
  description: "The message and the handwriting style of a handwritten card or letter.",
});
export type HandwrittenMessage = Static<typeof HandwrittenMessage>;

/** A handwritten request with `style` resolved. */
export interface HandwrittenRequest {
  message: string;
  style: HandwritingStyle;
}

let check: SchemaCheck | undefined;

/**
 * Checks the message and the style of a handwritten request (POST /api/v1/handwritten and /handwritten/drafts):
 * `message` a string of 1 to 800 characters (Unicode code points) that is not blank, `style` one of
 * HANDWRITING_STYLES (default "casual"). Issues at `message` and `style` with the shape codes (`required`,
 * `invalid_type`, `too_short`, `too_long`, `invalid_enum`). Other fields are neither checked nor returned: the core
 * checks the addresses with its address rules. Never throws.
 */
export function parseHandwrittenRequest(body: unknown): ProjectsParse<HandwrittenRequest> {
  check ??= createSchemaCheck(HandwrittenMessage);
  const issues = check(body);
  if (!isRecord(body)) return { ok: false, issues };
  const message = body.message;
  if (
    typeof message === "string" &&
    message !== "" &&
    message.trim() === "" &&
    !issues.some((issue) => issue.path === "message")
  ) {
    issues.push({ path: "message", code: "too_short", message: "message must not be blank." });
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      message: message as string,
      style: (body.style as HandwritingStyle | undefined) ?? DEFAULT_HANDWRITING_STYLE,
    },
  };
}
