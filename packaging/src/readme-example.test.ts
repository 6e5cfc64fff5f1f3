import { describe, expect, it } from "vitest";
import { arrowExpectations, printedLines, readmeExample } from "./readme-example.ts";

describe("readmeExample", () => {
  it("takes the first js block and the lines its arrow comments state", () => {
    const readme = [
      "# pkg",
      "```ts",
      "const typed: number = 1;",
      "```",
      "```js",
      'import { a } from "pkg";',
      "console.log(a(1)); // → 2",
      "console.log(a(2));",
      "// → 3",
      "```",
      "```js",
      "console.log(0); // → 0",
      "```",
    ].join("\n");
    expect(readmeExample(readme)).toEqual({
      code: 'import { a } from "pkg";\nconsole.log(a(1)); // → 2\nconsole.log(a(2));\n// → 3\n',
      expected: ["2", "3"],
    });
  });

  it("reads an Output block that follows the example", () => {
    const readme = [
      "```javascript",
      "console.log('x');",
      "```",
      "",
      "Output:",
      "",
      "```text",
      "x",
      "y  ",
      "",
      "```",
    ];
    expect(readmeExample(readme.join("\n"))).toEqual({ code: "console.log('x');\n", expected: ["x", "y  "] });
  });

  it("refuses a README without a js block, or whose example states nothing", () => {
    expect(() => readmeExample("```ts\nx\n```\n")).toThrow(/no ```js example/);
    expect(() => readmeExample("```js\nconsole.log(1);\n```\n\n```text\n1\n```\n")).toThrow(/states nothing/);
  });

  it("keeps fences of four backticks whole", () => {
    const readme = ["````js", "const s = `", "```", "`;", "console.log(s.length); // → 5", "````"].join("\n");
    expect(readmeExample(readme).expected).toEqual(["5"]);
  });
});

describe("arrowExpectations and printedLines", () => {
  it("compare lines as printed, trailing blanks aside", () => {
    expect(arrowExpectations("a // → one \n// →\nb")).toEqual(["one", ""]);
    expect(printedLines("one  \n\n")).toEqual(["one"]);
    expect(printedLines("one\n\ntwo\n")).toEqual(["one", "", "two"]);
  });
});
