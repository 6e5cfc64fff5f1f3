/**
 * A message as data, before it is written as text and as HTML: both versions are made from one layout, so they
 * carry the same facts in the same order. Every string here is already on one line (`oneLine`) and unescaped.
 */
export interface Layout {
  /** The subject, also the HTML title. */
  subject: string;
  brand: BrandView;
  /** A test-mode notice shown above everything else. */
  notice: string | null;
  heading: string;
  blocks: Block[];
}

export type Block =
  /** A sentence or two. */
  | { kind: "paragraph"; text: string }
  /** Labelled facts, one a row: `Order: ord_1`. A value with a `url` is a link when the URL is http(s). */
  | { kind: "facts"; rows: Fact[] }
  /** A titled list: what is mailed. */
  | { kind: "list"; title: string; items: string[] }
  /** Charges: a row a line item, then the total. */
  | { kind: "amounts"; title: string; rows: Amount[]; total: Amount }
  /** A labelled URL on its own: a link when it is http(s), text otherwise. */
  | { kind: "link"; label: string; url: string };

export interface Fact {
  label: string;
  value: string;
  /** When the value is a URL to link to. */
  url?: boolean;
}

export interface Amount {
  label: string;
  cents: number;
}

/** A brand as a message shows it: the name on top, its site and support address in the footer. */
export interface BrandView {
  name: string;
  url: string | null;
  support_email: string | null;
}
