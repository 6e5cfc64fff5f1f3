import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
import { COMPLIANCE_STAGES } from "./definition-schema.ts";
import { evaluateForm } from "./evaluate-form.ts";
import { ruleHolds } from "./rules.ts";
import { base64, JPEG_BASE64, makePng, TODAY } from "./test-support.ts";
import type { Workflow, WorkflowField } from "./workflow.ts";

const PNG = `data:image/png;base64,${base64(makePng(4, 4))}`;
const PDF_BASE64 = Buffer.from("%PDF-1.7\n%%EOF\n").toString("base64");

const junk = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(""),
  fc.constant("   "),
  fc.boolean(),
  fc.integer(),
  fc.string(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
);

/** Plausible and implausible answers for one field, drawn from the field's own definition. */
function answerFor(field: WorkflowField): fc.Arbitrary<unknown> {
  switch (field.type) {
    case "select":
      return fc.oneof(
        fc.constantFrom(...(field.choices ?? ["x"])),
        fc.constantFrom(...(field.choices ?? ["x"])).map((c) => c.toLowerCase()),
        junk,
      );
    case "checkbox":
      return fc.oneof(fc.boolean(), junk);
    case "date":
      return fc.oneof(
        fc
          .date({ min: new Date("2020-01-01"), max: new Date("2027-12-31"), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
        fc.constantFrom("2026-02-30", "03/09/2026", "2026-3-9"),
        junk,
      );
    case "text":
    case "textarea": {
      const max = field.max_length ?? 60;
      return fc.oneof(
        fc.string({ minLength: field.min_length ?? 1, maxLength: Math.min(max, 120) }),
        fc.nat({ max: max + 2 }).map((n) => "a".repeat(n)),
        fc.constantFrom(
          "$1,234.56",
          "1234.56",
          "0",
          "+1 217 555 0142",
          "a@example.com",
          "4821",
          "48a1",
          " x \n y ",
        ),
        junk,
      );
    }
    case "address":
      return fc.oneof(
        fc.record(
          {
            line1: fc.oneof(fc.constant("1 Main St"), junk),
            line2: fc.oneof(fc.constant("Apt 2"), junk),
            city: fc.oneof(fc.constant("Springfield"), junk),
            state: fc.oneof(fc.constant("IL"), junk),
            zip: fc.oneof(fc.constantFrom("62701", "K1A 0A9", "nope"), junk),
            countryCode: fc.oneof(fc.constantFrom("US", "CA", "DE", "XX"), junk),
          },
          { requiredKeys: [] },
        ),
        junk,
      );
    case "signature":
      return fc.oneof(
        fc.record({ mode: fc.constant("typed"), text: fc.oneof(fc.string(), junk) }),
        fc.record({
          mode: fc.constant("drawn"),
          dataUrl: fc.oneof(
            fc.constantFrom(PNG, `data:image/jpeg;base64,${JPEG_BASE64}`, "data:image/png;base64,AAAA"),
            junk,
          ),
        }),
        junk,
      );
  }
}

/** Answer sets built from the workflow's fields: each present or not, plus the odd unknown field. */
function answerSets(workflow: Workflow): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.fromEntries(workflow.fields.map((field) => [field.id, answerFor(field)]));
  return fc
    .tuple(
      fc.record(entries, { requiredKeys: [] }),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), junk, { maxKeys: 2 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

function attachmentSets(workflow: Workflow): fc.Arbitrary<unknown> {
  const slots = [...workflow.attachments.slots.map((s) => s.id), "unknown_slot"];
  const item = fc.record(
    {
      id: fc.oneof(fc.constantFrom(...slots), junk),
      file_name: fc.oneof(fc.constantFrom("a.pdf", "b.png", "c.jpg", "d.docx", "e"), junk),
      content_type: fc.oneof(fc.constantFrom("application/pdf", "image/png", "text/plain"), junk),
      base64: fc.oneof(fc.constantFrom(PDF_BASE64, PNG, JPEG_BASE64, "!!"), junk),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(fc.constant(undefined), fc.array(item, { maxLength: 4 }), junk);
}

/** The field id a "form.fields…" path names, and the rest of the path (a part of the answer), if any. */
function fieldOfPath(path: string): { id: string; part: string | undefined } {
  const rest = path.slice("form.fields".length);
  const match =
    /^\.([A-Za-z_$][A-Za-z0-9_$-]*)(.*)$/.exec(rest) ?? /^\[("(?:[^"\\]|\\.)*")\](.*)$/.exec(rest);
  if (match === null) return { id: "", part: undefined };
  const id = match[1]?.startsWith('"') ? (JSON.parse(match[1]) as string) : (match[1] ?? "");
  return { id, part: match[2] === "" ? undefined : match[2] };
}

describe.each(BUILTIN_WORKFLOWS.map((w) => [w.slug, w] as const))(
  "evaluateForm on %s, for any answers",
  (_, workflow) => {
    it("never throws, and every field reported missing is active and required", () => {
      fc.assert(
        fc.property(
          answerSets(workflow),
          attachmentSets(workflow),
          fc.constantFrom(...COMPLIANCE_STAGES),
          (fields, attachments, stage) => {
            const result = evaluateForm(workflow, { fields, attachments } as never, { stage, today: TODAY });
            for (const issue of result.issues.filter(
              (i) => i.path.startsWith("form.fields.") || i.path.startsWith("form.fields["),
            )) {
              const { id, part } = fieldOfPath(issue.path);
              const field = workflow.fields.find((f) => f.id === id);
              if (field === undefined) {
                expect(issue.code).toBe("unknown_field");
                continue;
              }
              // Every issue about a known field, or a part of its answer, is about an active field.
              expect(result.active_fields).toContain(id);
              // A field reported missing (the whole field, not a part of an address) is required.
              if (issue.code === "required" && part === undefined) expect(field.required).not.toBe(false);
            }
            expect(result.ok).toBe(result.issues.length === 0);
            for (const refusal of result.eligibility.refusals) expect(result.issues).toContainEqual(refusal);
            for (const id of Object.keys(result.answers)) expect(result.active_fields).toContain(id);
            for (const warning of result.warnings) {
              expect(warning.code).toBe("hidden_field_ignored");
              expect(result.active_fields).not.toContain(warning.path.slice("form.fields.".length));
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it("shows exactly the fields whose rules hold over the answers that count", () => {
      fc.assert(
        fc.property(answerSets(workflow), (fields) => {
          const result = evaluateForm(workflow, { fields }, { stage: "preview", today: TODAY });
          const data = Object.fromEntries(workflow.fields.map((f) => [f.id, result.answers[f.id] ?? null]));
          const expected = workflow.fields.filter(
            (f) => f.visible_when === undefined || ruleHolds(f.visible_when, data),
          );
          expect(result.active_fields).toEqual(expected.map((f) => f.id));
        }),
        { numRuns: 200 },
      );
    });

    it("gives the same issues at every stage", () => {
      fc.assert(
        fc.property(answerSets(workflow), (fields) => {
          const [first, ...rest] = COMPLIANCE_STAGES.map(
            (stage) => evaluateForm(workflow, { fields }, { stage, today: TODAY }).issues,
          );
          for (const issues of rest) expect(issues).toEqual(first);
        }),
        { numRuns: 100 },
      );
    });
  },
);
