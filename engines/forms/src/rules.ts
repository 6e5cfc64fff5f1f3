import jsonLogic, { type RulesLogic } from "json-logic-js";
import type { Rule as MutableRule } from "./definition-schema.ts";
import type { DeepReadonly } from "./workflow.ts";

/** A rule as read from a definition or a loaded workflow. */
type Rule = MutableRule | DeepReadonly<MutableRule>;

/** A rule taken apart: the field it reads and, for equals, the choice it compares with. */
export type RuleParts =
  | { operator: "truthy"; field: string }
  | { operator: "equals"; field: string; value: string };

/** The field a rule reads and what it tests. */
export function ruleParts(rule: Rule): RuleParts {
  if ("!!" in rule) {
    const operand = rule["!!"];
    const variable = "var" in operand ? operand : operand[0];
    return { operator: "truthy", field: variable.var };
  }
  const [variable, value] = rule["=="];
  return { operator: "equals", field: variable.var, value };
}

/**
 * Evaluates a rule with json-logic over the answers that count (active fields answered with valid values only,
 * so a loose comparison never sees a raw client value). Absent answers are null.
 */
export function ruleHolds(rule: Rule, answers: Readonly<Record<string, unknown>>): boolean {
  return jsonLogic.truthy(jsonLogic.apply(rule as RulesLogic, answers));
}

/** The rule in words: `include_co_borrowers is checked`, `claim_stage is "Written confirmation…"`. */
export function describeRule(rule: Rule): string {
  const parts = ruleParts(rule);
  return parts.operator === "truthy" ? `${parts.field} is checked` : `${parts.field} is "${parts.value}"`;
}
