import { describe, expect, it } from "vitest";
import { decodedByteLength, isBase64, parseDataUrl, utf8ByteLength } from "./base64.ts";

describe("base64", () => {
  it("isBase64 takes padded, unpadded and line-wrapped base64", () => {
    for (const ok of ["QQ==", "QUI=", "QUJD", "QQ", "QUI", "QUJD\r\nREVG"]) expect(isBase64(ok)).toBe(true);
    for (const bad of ["", "Q", "QQ=", "Q===", "QU-_", "QQ==QQ==", "é"]) expect(isBase64(bad)).toBe(false);
  });
  it("decodedByteLength counts the decoded bytes", () => {
    expect(decodedByteLength("QQ==")).toBe(1);
    expect(decodedByteLength("QUI=")).toBe(2);
    expect(decodedByteLength("QUJD")).toBe(3);
    expect(decodedByteLength("QUJDRA")).toBe(4);
  });
  it("parseDataUrl reads the media type and the data of base64 data URLs", () => {
    expect(parseDataUrl("data:Image/PNG;base64,QQ==")).toEqual({ mediaType: "image/png", base64: "QQ==" });
    expect(parseDataUrl("data:application/pdf;name=a.pdf;base64,QQ==")).toEqual({
      mediaType: "application/pdf",
      base64: "QQ==",
    });
    for (const bad of [
      "data:image/png,QQ==",
      "data:;base64,QQ==",
      "data:image/png;base64",
      "data:image/png;base64,@",
      "QQ==",
    ]) {
      expect(parseDataUrl(bad)).toBeUndefined();
    }
  });
  it("utf8ByteLength counts UTF-8 bytes", () => {
    expect(utf8ByteLength("aé€😀")).toBe(1 + 2 + 3 + 4);
    expect(utf8ByteLength("\uD800")).toBe(3);
  });
});
