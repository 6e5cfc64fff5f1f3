import { MESSAGE_LIMITS } from "./limits.ts";
import { type InputReader, pathOf } from "./read-input.ts";

export const MAILED_KINDS = ["letter", "postcard", "flower_letter", "handwritten"] as const;
export type MailedKind = (typeof MAILED_KINDS)[number];

/** What is (or was) mailed, as the caller describes it for people. */
export interface MailedItem {
  kind: MailedKind;
  /**
   * Up to 20 lines for people, e.g. ["Letter, 3 pages, black and white", "First class",
   * "To Grace Hopper, Washington, DC 20500"]; each 1 to 500 characters, put on one line. May be empty.
   */
  summary: string[];
}

const NOUNS: Readonly<Record<MailedKind, string>> = {
  letter: "letter",
  postcard: "postcard",
  flower_letter: "flower letter",
  handwritten: "handwritten mail",
};

/** The kind as a noun in a sentence: "letter", "flower letter", "handwritten mail". */
export function kindNoun(kind: MailedKind): string {
  return NOUNS[kind];
}

/** The `item` field of an input. */
export function readMailedItem(reader: InputReader, value: unknown): MailedItem | undefined {
  const fields = reader.object(value, "item", ["kind", "summary"]);
  if (fields === undefined) return undefined;
  const kind = reader.oneOf(fields, "kind", "item", MAILED_KINDS);
  const lines = reader.list(fields, "summary", "item", 0, MESSAGE_LIMITS.summary_lines);
  const summary = lines?.map((line, index) =>
    reader.textValue(line, pathOf("item.summary", index), { max: MESSAGE_LIMITS.summary_line_chars }),
  );
  if (kind === undefined || summary === undefined || summary.some((line) => line === undefined))
    return undefined;
  return { kind, summary: summary as string[] };
}

/** The lines that describe the item in a message: its summary, or the kind alone when there is none. */
export function itemLines(item: MailedItem): string[] {
  if (item.summary.length > 0) return item.summary;
  const noun = kindNoun(item.kind);
  return [noun.charAt(0).toUpperCase() + noun.slice(1)];
}
