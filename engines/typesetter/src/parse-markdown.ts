import type { ListItem, TableRow as MdTableRow, PhrasingContent, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmTableFromMarkdown } from "mdast-util-gfm-table";
import { gfmTable } from "micromark-extension-gfm-table";
import type { Block, InlineStyle, Run } from "./blocks.ts";
import { emboldened, italicized } from "./blocks.ts";
import { checkMarkdownComplexity } from "./markdown-complexity.ts";
import { normalizeText } from "./normalize-text.ts";
import { parseHtml } from "./parse-html.ts";
import { mergeRuns, normalizeBlocks } from "./runs.ts";

/**
 * Parses a markdown letter with mdast-util-from-markdown (micromark: CommonMark, plus GitHub tables). Headings (levels
 * 4 to 6 as 3), paragraphs, emphasis as italic and strong as bold, hard line breaks, ordered and unordered lists
 * (nested), tables (the first row is the header), block quotations, code as written and thematic breaks print.
 * A soft line break is a space, as CommonMark renders it: end a line with two spaces or a backslash to break it.
 * Links print their text; images print nothing and nothing is fetched. Raw HTML blocks go through the HTML parser
 * (same safe subset); inline HTML keeps only `<br>`, `<b>`/`<strong>` and `<i>`/`<em>`, other tags are ignored.
 * A letter beyond the markdown limits of `LETTER_LIMITS` is refused (`letter_too_complex`) before it is parsed.
 */
export function parseMarkdown(source: string): Block[] {
  const text = normalizeText(source);
  checkMarkdownComplexity(text);
  const tree = fromMarkdown(text, {
    extensions: [gfmTable()],
    mdastExtensions: [gfmTableFromMarkdown()],
  });
  return normalizeBlocks(flow(tree.children));
}

function flow(nodes: readonly RootContent[]): Block[] {
  const blocks: Block[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case "paragraph":
        blocks.push({ kind: "paragraph", runs: inline(node.children, "regular") });
        break;
      case "heading":
        blocks.push({
          kind: "heading",
          level: node.depth <= 1 ? 1 : node.depth === 2 ? 2 : 3,
          runs: inline(node.children, "bold"),
        });
        break;
      case "thematicBreak":
        blocks.push({ kind: "rule" });
        break;
      case "blockquote":
        blocks.push({ kind: "quote", blocks: flow(node.children) });
        break;
      case "list":
        blocks.push({
          kind: "list",
          ordered: node.ordered === true,
          start: node.start ?? 1,
          items: node.children.map((item: ListItem) => flow(item.children)),
        });
        break;
      case "code":
        blocks.push({ kind: "paragraph", runs: [{ text: node.value, style: "regular" }] });
        break;
      case "html":
        blocks.push(...parseHtml(node.value));
        break;
      case "table": {
        const rows = node.children.map((row: MdTableRow) => ({
          cells: row.children.map((cell) => inline(cell.children, "regular")),
        }));
        blocks.push({ kind: "table", rows, headerRows: rows.length > 0 ? 1 : 0 });
        break;
      }
      default:
        break;
    }
  }
  return blocks;
}

/** Inline HTML tags that change the style of the text after them, up to their closing tag. */
const INLINE_TAG = /^<(\/?)([a-z][a-z0-9]*)\b[^>]*?(\/?)>$/i;

function inline(nodes: readonly PhrasingContent[], style: InlineStyle): Run[] {
  const runs: Run[] = [];
  let bold = 0;
  let italic = 0;
  const current = (): InlineStyle => {
    let result = style;
    if (bold > 0) result = emboldened(result);
    if (italic > 0) result = italicized(result);
    return result;
  };
  for (const node of nodes) {
    switch (node.type) {
      case "text":
        runs.push({ text: node.value.replace(/\n/g, " "), style: current() });
        break;
      case "inlineCode":
        runs.push({ text: node.value, style: current() });
        break;
      case "break":
        runs.push({ text: "\n", style: current() });
        break;
      case "emphasis":
        runs.push(...inline(node.children, italicized(current())));
        break;
      case "strong":
        runs.push(...inline(node.children, emboldened(current())));
        break;
      case "delete":
      case "link":
      case "linkReference":
        runs.push(...inline(node.children, current()));
        break;
      case "html": {
        const tag = INLINE_TAG.exec(node.value.trim());
        if (!tag) break;
        const name = tag[2]!.toLowerCase();
        const step = tag[1] === "/" ? -1 : tag[3] === "/" ? 0 : 1;
        if (name === "br") runs.push({ text: "\n", style: current() });
        else if (name === "b" || name === "strong") bold = Math.max(0, bold + step);
        else if (name === "i" || name === "em") italic = Math.max(0, italic + step);
        break;
      }
      default:
        break;
    }
  }
  return mergeRuns(runs);
}
