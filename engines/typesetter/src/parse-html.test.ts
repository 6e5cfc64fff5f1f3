import { describe, expect, it } from "vitest";
import { parseHtml } from "./parse-html.ts";

const text = (value: string) => ({ text: value, style: "regular" as const });

describe("parseHtml", () => {
  it("makes headings (h4 to h6 as level 3), paragraphs, div lines and rules", () => {
    expect(parseHtml("<h1>One</h1><h2>Two</h2><h5>Five</h5><p>Para</p><div>Line</div><hr>")).toEqual([
      { kind: "heading", level: 1, runs: [{ text: "One", style: "bold" }] },
      { kind: "heading", level: 2, runs: [{ text: "Two", style: "bold" }] },
      { kind: "heading", level: 3, runs: [{ text: "Five", style: "bold" }] },
      { kind: "paragraph", runs: [text("Para")] },
      { kind: "line", runs: [text("Line")] },
      { kind: "rule" },
    ]);
  });

  it("reads b and strong as bold, i, em and cite as italic, nested as bold italic", () => {
    expect(parseHtml("<p>a <b>b</b> <strong>c <em>d</em></strong> <i>e</i> <cite>f</cite></p>")).toEqual([
      {
        kind: "paragraph",
        runs: [
          text("a "),
          { text: "b", style: "bold" },
          text(" "),
          { text: "c ", style: "bold" },
          { text: "d", style: "bold-italic" },
          text(" "),
          { text: "e", style: "italic" },
          text(" "),
          { text: "f", style: "italic" },
        ],
      },
    ]);
  });

  it("collapses white space as browsers do and keeps line breaks", () => {
    expect(parseHtml("<p>  a \n\t b <b> c </b>  d<br>  e  </p>")).toEqual([
      { kind: "paragraph", runs: [text("a b "), { text: "c ", style: "bold" }, text("d\ne")] },
    ]);
  });

  it("keeps pre text as written", () => {
    expect(parseHtml("<pre>\n  a  b\n    c\n</pre>")).toEqual([
      { kind: "paragraph", runs: [text("  a  b\n    c")] },
    ]);
  });

  it("drops scripts, styles, frames, objects, embeds, forms, media and images with their content", () => {
    const html = [
      "<head><title>T</title><style>p{}</style><link href='https://x.example/s.css'></head>",
      "<script>s</script><noscript>n</noscript><iframe src='https://x.example'>f</iframe>",
      "<object data='x'>o</object><embed src='x'><form>form<input value='i'><textarea>t</textarea>",
      "<select><option>o</option></select><button>b</button></form>",
      "<video>v</video><audio>a</audio><svg><text>s</text></svg><template>t</template>",
      "<img src='https://x.example/i.png' alt='alt'><img src='data:image/png;base64,AAAA'>",
      "<p>kept</p>",
    ].join("");
    expect(parseHtml(html)).toEqual([{ kind: "paragraph", runs: [text("kept")] }]);
  });

  it("prints the text of unknown elements and drops hidden ones", () => {
    expect(parseHtml("<p><x-note>known <blink>not</blink></x-note> <span hidden>gone</span>end</p>")).toEqual(
      [{ kind: "paragraph", runs: [text("known not end")] }],
    );
  });

  it("makes lists, nested, with the start of an ordered list", () => {
    expect(parseHtml("<ol start='4'><li>four<ul><li>inner</li></ul></li><li><p>five</p></li></ol>")).toEqual([
      {
        kind: "list",
        ordered: true,
        start: 4,
        items: [
          [
            { kind: "line", runs: [text("four")] },
            { kind: "list", ordered: false, start: 1, items: [[{ kind: "line", runs: [text("inner")] }]] },
          ],
          [{ kind: "paragraph", runs: [text("five")] }],
        ],
      },
    ]);
  });

  it("makes tables: thead rows are the header, then th-only rows when there is no thead; th cells are bold", () => {
    expect(
      parseHtml(
        "<table><caption>Costs</caption><tbody><tr><td>1</td><td>2</td></tr></tbody>" +
          "<thead><tr><th>A</th><th>B</th></tr></thead><tfoot><tr><th>Sum</th><td>3</td></tr></tfoot></table>",
      ),
    ).toEqual([
      { kind: "paragraph", runs: [text("Costs")] },
      {
        kind: "table",
        headerRows: 1,
        rows: [
          { cells: [[{ text: "A", style: "bold" }], [{ text: "B", style: "bold" }]] },
          { cells: [[text("1")], [text("2")]] },
          { cells: [[{ text: "Sum", style: "bold" }], [text("3")]] },
        ],
      },
    ]);
    expect(
      parseHtml("<table><tr><th>A</th></tr><tr><th>B</th></tr><tr><td>c</td></tr></table>"),
    ).toMatchObject([{ kind: "table", headerRows: 2 }]);
    expect(parseHtml("<table><tr><td>a</td><td>b<br>c</td></tr></table>")).toEqual([
      { kind: "table", headerRows: 0, rows: [{ cells: [[text("a")], [text("b\nc")]] }] },
    ]);
  });

  it("makes block quotations and definition descriptions indented quotes", () => {
    expect(parseHtml("<blockquote><p>q</p></blockquote><dl><dt>term</dt><dd>desc</dd></dl>")).toEqual([
      { kind: "quote", blocks: [{ kind: "paragraph", runs: [text("q")] }] },
      { kind: "line", runs: [text("term")] },
      { kind: "quote", blocks: [{ kind: "line", runs: [text("desc")] }] },
    ]);
  });

  it("keeps an empty div with a line break as an empty line, and drops empty paragraphs", () => {
    expect(parseHtml("<div>a</div><div><br></div><div>b</div><p> </p>")).toEqual([
      { kind: "line", runs: [text("a")] },
      { kind: "line", runs: [text("\n")] },
      { kind: "line", runs: [text("b")] },
    ]);
  });

  it("decodes entities and normalizes the text", () => {
    expect(parseHtml("<p>Zoe&#x308; &amp; &lt;b&gt; &nbsp;x&shy;y</p>")).toEqual([
      { kind: "paragraph", runs: [text("Zoë & <b> \u00a0xy")] },
    ]);
  });

  it("prints the text of markup nested too deeply to follow, without running out of stack", () => {
    const blocks = parseHtml(`${"<div><b>".repeat(5000)}deep <i>text</i>`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: "line", runs: [{ text: "deep text", style: "bold" }] });
  });
});
