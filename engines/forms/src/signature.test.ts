import { describe, expect, it } from "vitest";
import { checkSignature, MAX_SIGNATURE_IMAGE_BYTES } from "./signature.ts";
import { base64, JPEG_BASE64, keys, makePng } from "./test-support.ts";

const check = (raw: unknown) => checkSignature(raw, "form.fields.signature");
const png = `data:image/png;base64,${base64(makePng(20, 10))}`;

describe("checkSignature", () => {
  it("takes a typed signature, trimmed", () => {
    expect(check({ mode: "typed", text: "  Jane   Public " })).toEqual({
      status: "valid",
      value: { mode: "typed", text: "Jane Public" },
    });
  });

  it("takes a drawn PNG or JPEG signature, with an optional print version", () => {
    expect(check({ mode: "drawn", dataUrl: png }).status).toBe("valid");
    expect(
      check({ mode: "drawn", dataUrl: `data:image/jpeg;base64,${JPEG_BASE64}`, printDataUrl: png }).status,
    ).toBe("valid");
  });

  it("a blank typed text or an empty drawing is not a signature", () => {
    expect(check({ mode: "typed", text: " " }).status).toBe("absent");
    expect(check({ mode: "typed" }).status).toBe("absent");
    expect(check({ mode: "drawn", dataUrl: "" }).status).toBe("absent");
  });

  it.each([
    ["a string", "Jane", "form.fields.signature invalid_signature"],
    ["no mode", { text: "Jane" }, "form.fields.signature invalid_signature"],
    ["typed text too long", { mode: "typed", text: "J".repeat(2001) }, "form.fields.signature.text too_long"],
    ["typed text not a string", { mode: "typed", text: 5 }, "form.fields.signature.text invalid_type"],
    [
      "a property of the other mode",
      { mode: "typed", text: "J", dataUrl: png },
      "form.fields.signature.dataUrl unknown_property",
    ],
    [
      "a GIF",
      { mode: "drawn", dataUrl: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" },
      "form.fields.signature.dataUrl invalid_signature",
    ],
    [
      "JPEG bytes called PNG",
      { mode: "drawn", dataUrl: `data:image/png;base64,${JPEG_BASE64}` },
      "form.fields.signature.dataUrl invalid_signature",
    ],
    [
      "not base64",
      { mode: "drawn", dataUrl: "data:image/png;base64,???" },
      "form.fields.signature.dataUrl invalid_signature",
    ],
  ])("refuses %s", (_, raw, issue) => {
    const result = check(raw);
    expect(result.status === "invalid" && keys(result.issues)).toEqual([issue]);
  });

  it("refuses a drawing over 2 MB", () => {
    const big = Buffer.alloc(MAX_SIGNATURE_IMAGE_BYTES + 1);
    Buffer.from(makePng(1, 1)).copy(big);
    const result = check({ mode: "drawn", dataUrl: `data:image/png;base64,${big.toString("base64")}` });
    expect(result.status === "invalid" && keys(result.issues)).toEqual([
      "form.fields.signature.dataUrl signature_image_too_large",
    ]);
  });
});
