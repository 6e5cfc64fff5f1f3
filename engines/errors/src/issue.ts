/**
 * One problem with an input: where it is (`path`, dot-separated, with array indexes, e.g.
 * `recipient_address_manual.state` or `rows.3.zip`; empty for the whole input), a stable machine `code` that clients
 * branch on, and a `message` for people that may change.
 */
export interface Issue {
  path: string;
  code: string;
  message: string;
}
