import { MAX_LETTER_CHARS } from "@mailpiece/orders";
import { MAX_HANDWRITTEN_MESSAGE_CHARS } from "@mailpiece/typesetter/light";

/** Size limits of templates and handwritten requests, in characters (Unicode code points) unless said otherwise. */
export const TEMPLATE_LIMITS = {
  /** A template's name. */
  name_chars: 200,
  /** A template's body: as long as a letter's body. */
  body_chars: MAX_LETTER_CHARS,
  /** Variables a template declares. */
  variables: 100,
  /** A variable name: a letter or _, then letters, digits or _. */
  variable_name_chars: 64,
  /** A variable's value at a merge, and its declared default. */
  value_chars: 1_000,
  /** The merged letter: as long as a letter's body. */
  merged_chars: MAX_LETTER_CHARS,
  /** The message of a handwritten card (the typesetter's limit: one page in every style). */
  handwritten_message_chars: MAX_HANDWRITTEN_MESSAGE_CHARS,
} as const;

/** A variable name as declared and as written inside `{{ }}`. */
export const VARIABLE_NAME_PATTERN = `^[A-Za-z_][A-Za-z0-9_]{0,${TEMPLATE_LIMITS.variable_name_chars - 1}}$`;
