import { describe, expect, it } from "vitest";
import { type Operand, type Operation, readOperations } from "./content-tokenizer.ts";
import { PostcardError } from "./errors.ts";

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const ops = (s: string): Operation[] => [...readOperations(bytes(s))];
const str = (s: string) => ({ type: "string", bytes: bytes(s) });
const name = (n: string) => ({ type: "name", name: n });

describe("readOperations", () => {
  it("reads operators with their operands: numbers, names, booleans, null", () => {
    expect(ops("q 1 0 0 1 72.5 -.5 cm /GS0 gs true false null BX Q")).toEqual([
      { operator: "q", operands: [] },
      { operator: "cm", operands: [1, 0, 0, 1, 72.5, -0.5] },
      { operator: "gs", operands: [name("GS0")] },
      { operator: "BX", operands: [true, false, null] },
      { operator: "Q", operands: [] },
    ]);
  });

  it("reads numbers as viewers do", () => {
    const [op] = ops("4. +3 -0.25 .5 --2 1.2.3 x");
    expect(op).toEqual({ operator: "x", operands: [4, 3, -0.25, 0.5, 2, 1.2] });
  });

  it("keeps escapes in names as written", () => {
    expect(ops("/Fm#201 Do")[0]!.operands).toEqual([name("Fm#201")]);
  });

  it("reads literal strings with nested parentheses, escapes, octal codes and line continuations", () => {
    const [op] = ops("(a (nested) b\\) \\n\\t\\\\ \\101\\0618 \\q li\\\nne, cr\\\r\nlf) Tj");
    expect(op!.operator).toBe("Tj");
    expect(op!.operands).toEqual([str("a (nested) b) \n\t\\ A18 q line, crlf")]);
  });

  it("reads a string holding operator names and brackets as one operand", () => {
    expect(ops("(BT 1 0 0 rg ] >> [) Tj")).toEqual([
      { operator: "Tj", operands: [str("BT 1 0 0 rg ] >> [")] },
    ]);
  });

  it("reads hex strings with white space and an odd last digit", () => {
    expect(ops("<48 65 6C6c 7> Tj")[0]!.operands).toEqual([
      { type: "string", bytes: Uint8Array.of(0x48, 0x65, 0x6c, 0x6c, 0x70) },
    ]);
  });

  it("reads nested arrays and dictionaries", () => {
    const [tj, bdc] = ops("[(A) -120 (B) [1 2]] TJ /Span <</Alt (x) /N [1 <</K 2>>]>> BDC");
    expect(tj).toEqual({ operator: "TJ", operands: [[str("A"), -120, str("B"), [1, 2]]] });
    const dict = bdc!.operands[1] as { type: "dict"; entries: Map<string, Operand> };
    expect(bdc!.operands[0]).toEqual(name("Span"));
    expect(dict.entries.get("Alt")).toEqual(str("x"));
    expect(dict.entries.get("N")).toEqual([1, { type: "dict", entries: new Map([["K", 2]]) }]);
  });

  it("skips comments and stray delimiters", () => {
    expect(ops("% a comment ( not a string\n1 w } ) { >\r%x\n2 J")).toEqual([
      { operator: "w", operands: [1] },
      { operator: "J", operands: [2] },
    ]);
  });

  it("ends an unterminated string or array at the end of the data", () => {
    expect(ops("(open")).toEqual([]);
    expect(ops("[1 2")).toEqual([]);
    expect(ops("0 0 m (x")).toEqual([{ operator: "m", operands: [0, 0] }]);
  });

  it("skips inline image data of stated or computed length, even when it holds EI", () => {
    // 2 x 2 gray pixels, 8 bits: 4 bytes, " EI " - which a search for EI alone would take for the end.
    const computed = ops("q BI /W 2 /H 2 /CS /G /BPC 8 ID  EI  EI Q 1 w");
    expect(computed.map((o) => o.operator)).toEqual(["q", "BI", "Q", "w"]);
    expect(computed[1]!.image?.get("W")).toBe(2);
    const stated = ops("BI /W 9 /H 9 /F /Fl /L 7 ID  EI 9 w EI 2 w");
    expect(stated.map((o) => o.operator)).toEqual(["BI", "w"]);
    expect(stated.at(-1)!.operands).toEqual([2]);
  });

  it("finds the end of filtered inline image data at an EI followed by content, not by binary data", () => {
    // The first " EI " is followed by binary bytes: still image data.
    const data = "BI /W 4 /H 4 /CS /RGB /BPC 8 /F /Fl ID x\x9c EI \x01\x02\x03 00 EI Q";
    const found = ops(data);
    expect(found.map((o) => o.operator)).toEqual(["BI", "Q"]);
    const colourless = ops("BI /W 4 /H 4 /CS /Custom ID ab EI 3 w");
    expect(colourless.map((o) => o.operator)).toEqual(["BI", "w"]);
  });

  it("refuses arrays nested deeper than any real content", () => {
    let refusal: unknown;
    try {
      ops(`${"[".repeat(65)}`);
    } catch (error) {
      refusal = error;
    }
    expect(PostcardError.isInstance(refusal) && refusal.code).toBe("content_malformed");
    expect(ops(`${"[".repeat(64)}1${"]".repeat(64)} x`)).toHaveLength(1);
  });
});
