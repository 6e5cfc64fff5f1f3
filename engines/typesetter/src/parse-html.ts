import type { DefaultTreeAdapterTypes } from "parse5";
import { parse } from "parse5";
import type { Block, InlineStyle, Run, TableRow } from "./blocks.ts";
import { emboldened, italicized } from "./blocks.ts";
import { normalizeText } from "./normalize-text.ts";
import { collapseSpaces, flattenBlocks, isEmpty, joinLines, mergeRuns, normalizeBlocks } from "./runs.ts";

type Node = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

/**
 * Elements whose content never prints: scripts, styles, embedded and interactive content, forms, media and the
 * document head. Nothing they point to is ever fetched.
 */
const DROPPED = new Set([
  "applet",
  "area",
  "audio",
  "base",
  "button",
  "canvas",
  "datalist",
  "dialog",
  "embed",
  "form",
  "frame",
  "frameset",
  "head",
  "iframe",
  "img",
  "input",
  "link",
  "map",
  "math",
  "meta",
  "meter",
  "noembed",
  "noframes",
  "noscript",
  "object",
  "option",
  "param",
  "picture",
  "progress",
  "script",
  "select",
  "source",
  "style",
  "svg",
  "template",
  "textarea",
  "title",
  "track",
  "video",
]);

/** Elements that stand as a block of lines with no space around them, like a `div` in a browser. */
const LINE_BLOCKS = new Set([
  "article",
  "aside",
  "body",
  "center",
  "details",
  "div",
  "dt",
  "fieldset",
  "figcaption",
  "footer",
  "header",
  "hgroup",
  "html",
  "legend",
  "main",
  "nav",
  "section",
  "summary",
]);

/** Elements that are paragraphs: set apart from their neighbours by a line's space. */
const PARAGRAPHS = new Set(["p", "address", "figure", "caption"]);

const BOLD = new Set(["b", "strong"]);
const ITALIC = new Set(["i", "em", "cite", "dfn", "var"]);
const HEADINGS: Record<string, 1 | 2 | 3> = { h1: 1, h2: 2, h3: 3, h4: 3, h5: 3, h6: 3 };

/**
 * Parses an HTML letter (a whole document or a fragment) with parse5, the WHATWG-conformant parser, so malformed
 * markup is read the way browsers read it. A safe subset prints: headings, paragraphs and `div` lines, bold and italic
 * text, line breaks, ordered and unordered lists (nested), tables (`th` rows and `thead` as the header), block
 * quotations, `pre` text as written and horizontal rules. Nothing is ever fetched: images (including `data:` images),
 * links' targets and CSS are ignored. Scripts, styles, frames, objects, forms and media are dropped with their content;
 * elements marked `hidden` too. Any other element prints its text.
 */
export function parseHtml(source: string): Block[] {
  const document = parse(normalizeText(source));
  return normalizeBlocks(new HtmlReader().read(document.childNodes));
}

/** Elements nested deeper than this print their text only, so deep markup cannot exhaust the stack. */
const MAX_DEPTH = 48;

class HtmlReader {
  /** How many elements enclose the nodes being read. */
  private depth: number;
  private blocks: Block[] = [];
  private inline: Run[] = [];
  /** The kind of block the pending inline text makes when it ends. */
  private inlineKind: "line" | "paragraph" = "line";

  constructor(depth = 0) {
    this.depth = depth;
  }

  read(nodes: readonly Node[], style: InlineStyle = "regular"): Block[] {
    for (const node of nodes) this.node(node, style, false);
    this.endInline();
    return this.blocks;
  }

  /** Reads nodes in a reader of their own and returns its blocks. */
  private nested(nodes: readonly Node[], style: InlineStyle): Block[] {
    return new HtmlReader(this.depth).read(nodes, style);
  }

  private endInline(): void {
    const runs = collapseSpaces(this.inline);
    if (!isEmpty(runs) || runs.some((run) => run.text.includes("\n"))) {
      this.blocks.push({ kind: this.inlineKind, runs });
    }
    this.inline = [];
    this.inlineKind = "line";
  }

  private push(block: Block): void {
    this.endInline();
    this.blocks.push(block);
  }

  private node(node: Node, style: InlineStyle, pre: boolean): void {
    if (node.nodeName === "#text") {
      const value = (node as DefaultTreeAdapterTypes.TextNode).value;
      this.inline.push({ text: pre ? value : value.replace(/[ \t\n\r\f]+/g, " "), style });
      return;
    }
    if (!("tagName" in node)) return;
    const element = node as Element;
    if (isDropped(element)) return;
    if (this.depth >= MAX_DEPTH) {
      const text = textOf(element);
      this.inline.push({ text: pre ? text : text.replace(/[ \t\n\r\f]+/g, " "), style });
      return;
    }
    this.depth++;
    try {
      this.element(element, style, pre);
    } finally {
      this.depth--;
    }
  }

  private element(element: Element, style: InlineStyle, pre: boolean): void {
    const tag = element.tagName;
    const children = element.childNodes;

    if (tag === "br") {
      this.inline.push({ text: "\n", style });
    } else if (tag === "hr") {
      this.push({ kind: "rule" });
    } else if (HEADINGS[tag] !== undefined) {
      const runs = joinLines(flattenBlocks(this.nested(children, emboldened(style))));
      this.push({ kind: "heading", level: HEADINGS[tag], runs });
    } else if (tag === "ul" || tag === "ol" || tag === "menu") {
      this.push(this.list(element, style));
    } else if (tag === "table") {
      this.table(element, style);
    } else if (tag === "blockquote" || tag === "dd") {
      this.push({ kind: "quote", blocks: this.nested(children, style) });
    } else if (tag === "pre") {
      this.endInline();
      const inner = new HtmlReader(this.depth);
      for (const child of children) inner.node(child, style, true);
      this.blocks.push({ kind: "paragraph", runs: mergeRuns(withoutFinalBreak(inner.inline)) });
    } else if (PARAGRAPHS.has(tag)) {
      this.endInline();
      for (const child of children) this.node(child, style, pre);
      this.inlineKind = "paragraph";
      this.endInline();
    } else if (LINE_BLOCKS.has(tag) || tag === "li" || tag === "dl") {
      this.endInline();
      for (const child of children) this.node(child, style, pre);
      this.endInline();
    } else {
      const inner = BOLD.has(tag) ? emboldened(style) : ITALIC.has(tag) ? italicized(style) : style;
      for (const child of children) this.node(child, inner, pre);
    }
  }

  private list(element: Element, style: InlineStyle): Block {
    const items: Block[][] = [];
    for (const child of element.childNodes) {
      if ("tagName" in child && child.tagName === "li") {
        if (!child.attrs.some((attr) => attr.name === "hidden"))
          items.push(this.nested(child.childNodes, style));
      } else {
        const loose = this.nested([child], style);
        if (loose.length === 0) continue;
        const last = items[items.length - 1];
        if (last === undefined) items.push(loose);
        else last.push(...loose);
      }
    }
    const start = Number.parseInt(element.attrs.find((attr) => attr.name === "start")?.value ?? "1", 10);
    return {
      kind: "list",
      ordered: element.tagName === "ol",
      start: Number.isFinite(start) ? start : 1,
      items,
    };
  }

  private table(element: Element, style: InlineStyle): void {
    const groups: { rows: Row[]; part: "head" | "body" | "foot" }[] = [];
    for (const child of element.childNodes) {
      if (!("tagName" in child)) continue;
      if (child.tagName === "caption") {
        this.push({
          kind: "paragraph",
          runs: joinLines(flattenBlocks(this.nested(child.childNodes, style))),
        });
      } else if (child.tagName === "thead" || child.tagName === "tbody" || child.tagName === "tfoot") {
        const part = child.tagName === "thead" ? "head" : child.tagName === "tfoot" ? "foot" : "body";
        groups.push({ rows: this.rows(child, style), part });
      }
    }
    const order = { head: 0, body: 1, foot: 2 } as const;
    const rows = groups.sort((a, b) => order[a.part] - order[b.part]).flatMap((group) => group.rows);
    if (rows.length === 0) return;
    const head = groups
      .filter((group) => group.part === "head")
      .reduce((count, group) => count + group.rows.length, 0);
    let headerRows = head;
    if (head === 0) while (headerRows < rows.length && rows[headerRows]!.allHeader) headerRows++;
    this.push({ kind: "table", rows: rows.map((row) => ({ cells: row.cells })), headerRows });
  }

  /** The rows of a table section; `th` cells are bold. */
  private rows(section: Element, style: InlineStyle): Row[] {
    const rows: Row[] = [];
    for (const tr of section.childNodes) {
      if (!("tagName" in tr) || tr.tagName !== "tr") continue;
      const cells: Run[][] = [];
      let allHeader = true;
      for (const cell of tr.childNodes) {
        if (!("tagName" in cell) || (cell.tagName !== "td" && cell.tagName !== "th")) continue;
        if (cell.tagName === "td") allHeader = false;
        const cellStyle = cell.tagName === "th" ? emboldened(style) : style;
        cells.push(joinLines(flattenBlocks(this.nested(cell.childNodes, cellStyle))));
      }
      if (cells.length > 0) rows.push({ cells, allHeader });
    }
    return rows;
  }
}

interface Row extends TableRow {
  /** Every cell of the row is a `th`. */
  allHeader: boolean;
}

function isDropped(element: Element): boolean {
  return DROPPED.has(element.tagName) || element.attrs.some((attr) => attr.name === "hidden");
}

/** The text of an element and everything in it (less dropped elements), read without recursion. */
function textOf(element: Element): string {
  let text = "";
  const stack: Node[] = [...element.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === "#text") text += (node as DefaultTreeAdapterTypes.TextNode).value;
    else if ("tagName" in node && !isDropped(node)) stack.push(...[...node.childNodes].reverse());
  }
  return text;
}

/** Text of a `pre` element as written, less a line break at the very end (the parser drops one at the start). */
function withoutFinalBreak(runs: readonly Run[]): Run[] {
  const out = runs.map((run) => ({ ...run }));
  const last = out[out.length - 1];
  if (last?.text.endsWith("\n")) last.text = last.text.slice(0, -1);
  return out;
}
