import { EXAMPLE_ORDER_REQUESTS } from "../engines/orders/src/index.ts";

const FIRST = ["Grace", "Alan", "Zoë", "José", "Ada", "Jürgen", "Amélie", "Katherine", "Søren", "Edsger"];
const LAST = ["Hopper", "Turing", "Müller", "García", "Lovelace", "Weiß", "Dubois", "Johnson", "Kierkegaard"];
/** Destinations and a valid city, state and postal code for each; most rows are domestic. */
const PLACES = [
  ["US", "Springfield", "IL", "62701"],
  ["US", "Portland", "OR", "97201-1234"],
  ["US", "Austin", "TX", "73301"],
  ["US", "Boston", "MA", "02108"],
  ["US", "Denver", "CO", "80202"],
  ["US", "Seattle", "WA", "98101"],
  ["US", "Miami", "FL", "33101"],
  ["CA", "Ottawa", "ON", "K1A 0B1"],
  ["DE", "Berlin", "", "10117"],
  ["GB", "London", "", "SW1A 2AA"],
] as const;

/**
 * A campaign CSV of `rows` recipients: a header with the address columns, a country column and two free columns
 * for the template, names with accented letters, five destinations, and one row in a hundred with a bad ZIP code.
 */
export function campaignCsv(rows: number): string {
  const lines = ["recipient_name,line1,line2,city,state,zip,country,venue,note"];
  for (let i = 0; i < rows; i++) {
    const [country, city, state, zip] = PLACES[i % PLACES.length]!;
    const name = `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`;
    const postal = i % 100 === 90 ? "1234" : zip;
    const line2 = i % 3 === 0 ? `Apt ${i % 50}` : "";
    const note = i % 7 === 0 ? `"Bring this letter, row ${i}, to the front desk."` : "";
    lines.push(
      `${name},${100 + (i % 900)} Main St,${line2},${city},${state},${postal},${country},Hall ${i % 40},${note}`,
    );
  }
  return lines.join("\n");
}

/** A text-mode bulk order over `csv`, as a client sends it. */
export function campaignOrder(csv: string): Record<string, unknown> {
  return {
    ...EXAMPLE_ORDER_REQUESTS.bulk,
    bulk: {
      campaign_name: "Spring open day",
      content_mode: "text",
      template_text:
        "Dear {{recipient_name}},\n\nOur spring open day is on Saturday in {{venue}}. Doors open at ten; there is coffee, a tour of the print room and a short talk on how letters are posted.\n\n{{note}}\n\nWith best wishes,\nAda Lovelace",
      csv_content: csv,
    },
  };
}
