import { type DefaultTreeAdapterTypes, parse } from "parse5";
import { expect } from "vitest";
import { MessagesError } from "./errors.ts";
import type { MailedItem } from "./mailed-item.ts";
import type { PaymentDetails } from "./payment.ts";
import type { RenderedMessage } from "./rendered-message.ts";

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

export const LETTER: MailedItem = {
  kind: "letter",
  summary: ["Letter, 3 pages, black and white", "First class", "To Grace Hopper, Washington, DC 20500"],
};

export const X402_PAYMENT: PaymentDetails = {
  rail: "x402",
  reference: "0x8f3a5b1c2d4e6f708192a3b4c5d6e7f8091a2b3c",
  payer: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  paid_at: "2026-01-05T14:03:27.512Z",
};

export const BRAND = {
  name: "Acme Mail",
  url: "https://acme.example/mail",
  support_email: "help@acme.example",
};

/** Text with every run of white space (line breaks and indents of wrapped lines among them) as one space. */
export function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** What a browser makes of an HTML body: its title, language, visible text, elements, links and attributes. */
export interface HtmlView {
  title: string;
  lang: string | undefined;
  /** The text of the body, white space collapsed. */
  text: string;
  /** Every element's name, lower case. */
  elements: string[];
  /** Every href, as the parser decoded it. */
  hrefs: string[];
  /** Every attribute name on every element. */
  attributes: string[];
  /** The visible text of each link, white space collapsed. */
  links: string[];
}

export function readHtml(html: string): HtmlView {
  const document = parse(html);
  const view: HtmlView = {
    title: "",
    lang: undefined,
    text: "",
    elements: [],
    hrefs: [],
    attributes: [],
    links: [],
  };
  const texts: string[] = [];
  const textOf = (node: Node): string =>
    node.nodeName === "#text"
      ? (node as DefaultTreeAdapterTypes.TextNode).value
      : "childNodes" in node
        ? node.childNodes.map(textOf).join(" ")
        : "";
  const visit = (node: Node, inBody: boolean) => {
    if (node.nodeName === "#text") {
      if (inBody) texts.push((node as DefaultTreeAdapterTypes.TextNode).value);
      return;
    }
    if (!("tagName" in node)) {
      if ("childNodes" in node) for (const child of node.childNodes) visit(child, inBody);
      return;
    }
    const element = node as Element;
    view.elements.push(element.tagName);
    for (const attribute of element.attrs) view.attributes.push(attribute.name);
    if (element.tagName === "html") view.lang = element.attrs.find((a) => a.name === "lang")?.value;
    if (element.tagName === "title") view.title = textOf(element);
    if (element.tagName === "a") {
      const href = element.attrs.find((a) => a.name === "href")?.value;
      if (href !== undefined) view.hrefs.push(href);
      view.links.push(flat(textOf(element)));
    }
    for (const child of element.childNodes) visit(child, inBody || element.tagName === "body");
  };
  visit(document, false);
  view.text = flat(texts.join(" "));
  return view;
}

/** The issues of the MessagesError `run` throws, with its code; anything else thrown is thrown again. */
export function issuesOf(run: () => unknown): {
  code: string;
  issues: { path: string; code: string }[];
} {
  try {
    run();
  } catch (error) {
    if (MessagesError.isInstance(error)) {
      return { code: error.code, issues: error.issues.map(({ path, code }) => ({ path, code })) };
    }
    throw error;
  }
  throw new Error("no error was thrown");
}

/** The lines of a text body longer than the wrap width that are more than one word (a long URL may stand alone). */
export function overlongLines(text: string, width = 78): string[] {
  return text.split("\n").filter((line) => line.length > width && line.trim().includes(" "));
}

/** Deep-frozen copy of `value`: a function that wrote to its input would throw. */
export function frozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (node: unknown) => {
    if (typeof node === "object" && node !== null) {
      for (const child of Object.values(node)) freeze(child);
      Object.freeze(node);
    }
  };
  freeze(copy);
  return copy;
}

/** Asserts that the text and the HTML of `message` both state every fact, and that the text keeps to 78 columns. */
export function expectFactsInBoth(message: RenderedMessage, facts: readonly string[]): HtmlView {
  const text = flat(message.text);
  const html = readHtml(message.html);
  for (const fact of facts) {
    expect(text, fact).toContain(fact);
    expect(html.text, fact).toContain(fact);
  }
  expect(overlongLines(message.text)).toEqual([]);
  return html;
}
