import { describe, expect, it } from "vitest";
import { FlowerCustomer, FlowerLetterRequest, FlowerRecipient } from "./flower-letter-schema.ts";

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
};

/** Every property of an object schema, at every depth, with its dotted path. */
function properties(schema: Schema, at = ""): Array<[string, Schema]> {
  return Object.entries(schema.properties ?? {}).flatMap(([key, value]) => {
    const path = at === "" ? key : `${at}.${key}`;
    return [[path, value] as [string, Schema], ...properties(value, path)];
  });
}

describe("the flower-letter schema as published", () => {
  it("is plain JSON Schema: it survives a JSON round trip unchanged", () => {
    const json = JSON.parse(JSON.stringify(FlowerLetterRequest));
    expect(json).toEqual({ ...FlowerLetterRequest });
  });

  it("documents every property", () => {
    for (const [path, schema] of properties(FlowerLetterRequest as Schema)) {
      expect(schema.description, path).toMatch(/\S{3}/);
    }
  });

  it("states which fields are required", () => {
    expect([...(FlowerLetterRequest.required ?? [])].sort()).toEqual([
      "buyer_email",
      "customer",
      "delivery_date",
      "note",
      "product_code",
      "recipient",
      "request_id",
      "zipcode",
    ]);
    expect([...(FlowerRecipient.required ?? [])].sort()).toEqual([
      "address1",
      "city",
      "name",
      "phone",
      "state",
      "zipcode",
    ]);
    expect(FlowerCustomer.required).toEqual(["name"]);
  });
});
