import type { Suite } from "../kit.ts";
import type { HttpTarget } from "../machine/http-target.ts";
import { accessChecks } from "./v1-access-checks.ts";
import { gated, type V1Check, v1Context } from "./v1-context.ts";
import { mailChecks } from "./v1-mail-checks.ts";
import { testModeChecks } from "./v1-test-mode-checks.ts";
import { webhookChecks } from "./v1-webhook-checks.ts";
import { workflowChecks } from "./v1-workflow-checks.ts";

/** Every test of the Projects API suite, in the order they run. */
export const V1_SUITE_TEST_NAMES = [
  "a request without a key is 401 with WWW-Authenticate: Bearer",
  "a malformed or unknown key is 401 unauthorized and never repeated",
  "an unknown path is 404 and another method 405 with Allow, without a key",
  "every answer is marked Cache-Control: no-store",
  "error bodies are {error, message, issues} with the path of each issue",
  "the key list shows prefixes and status, never a key",
  "a key rotation with an unknown mode is 422 at mode and issues no key",
  "the credit balance shows the key's mode with both modes' snapshots",
  "the credit ledger lists credit movements in integer cents",
  "webhook endpoints refuse a URL that is not https, registering nothing",
  "webhook endpoints show their whsec_ secret once, rotate it and are disabled by DELETE",
  "webhook events are listed with types of the pattern service.{kind}.{status}",
  "the return-receipt export is a zip archive with its manifest",
  "a document goes from upload intent through a keyless PUT to complete",
  "a document that is not complete cannot be quoted",
  "a letter quote carries the spec's fields, its defaults and the options as sent",
  "unavailable letter option combinations are 422 at their field, never changed",
  "letter prices follow the published constants",
  "a postcard quote needs postcard_size and takes no proof mail",
  "an order needs an Idempotency-Key; a retry answers the same order; the key with another body is refused",
  "an order reads back with its timeline, funds and metadata",
  "an order's document.pdf is its PDF",
  "templates are created, versioned on PATCH and archived",
  "a template send with a missing variable is 422 at variables.<name>",
  "a handwritten card is sent and its proof is a PDF",
  "drafts are saved without spending and revised with immutable revisions",
  "an approved draft is released once: a second release answers the same order",
  "approvals are expense summaries without addresses, documents or metadata",
  "test-mode drafts need an Idempotency-Key",
  "a test mail draft has a PDF preview, a zero-dollar quote and fake tracking events",
  "a test form draft previews a workflow's answers",
  "a test order shows its fake lifecycle; an unknown one is 404",
  "a test mail draft with bad fields is 422 with every issue at its path",
] as const;

export type V1SuiteTestName = (typeof V1_SUITE_TEST_NAMES)[number];

export interface V1SuiteOptions {
  /**
   * A bearer key of the workspace to check. Without it, only the checks that need no key run (refusals, routing,
   * the test-mode drafts); the others answer notApplicable. Checks that mail or pay (orders, a handwritten card, a
   * draft's release, a template send) run only with a test-mode key, spending little of its test credits.
   */
  apiKey?: string;
  /** The operator's admin token, for the approval a person gives in the release check; without it that check is notApplicable. */
  adminToken?: string;
  /**
   * The HTTPS receiver the webhook check registers, then disables in the same check: a URL the deployment's
   * receiver check accepts (public addresses only). While registered it may receive events of both modes of the
   * workspace. Without it, the endpoint check answers notApplicable and no endpoint is registered.
   */
  webhookUrl?: string;
}

/**
 * The Projects API suite (spec 3, /api/v1 and the test-mode drafts at /v1/test): runs in-process or against any
 * deployment. Checks share what they make (a document, a letter order) within one suite, each making it when it
 * first needs it, so any of them can run alone. Every test names the sentence of spec 3 it checks.
 */
export function v1Suite(target: HttpTarget, options: V1SuiteOptions): Suite<V1SuiteTestName> {
  const context = v1Context(target, options);
  const checks: Record<V1SuiteTestName, V1Check> = {
    ...accessChecks(context),
    ...webhookChecks(context, options.webhookUrl),
    ...mailChecks(context),
    ...workflowChecks(context),
    ...testModeChecks(context),
  };
  const names = new Set<string>(V1_SUITE_TEST_NAMES);
  const unnamed = Object.keys(checks).filter((name) => !names.has(name));
  if (unnamed.length > 0) throw new Error(`checks without a listed name: ${unnamed.join("; ")}`);
  return {
    name: `Projects API (${target.label})`,
    sideEffects:
      "with a test-mode key only: spends test credits on one letter, one handwritten card and one released draft (never money); makes drafts, templates and (only with webhookUrl) a webhook endpoint at that URL and archives, discards or disables them again; with a live key it spends nothing",
    tests: V1_SUITE_TEST_NAMES.map((name) => ({
      name,
      requirement: checks[name].requirement,
      run: gated(context, checks[name]),
    })),
  };
}
