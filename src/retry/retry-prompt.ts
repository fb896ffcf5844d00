import { BUILTIN_PATTERN_NAMES } from "../ports/check-failure.js";
import type { RetryPrompt, RetryPromptRequest } from "../ports/prompts.js";
import type { OnFailure } from "../ports/registry.js";
import { renderParams } from "../prompts/variables.js";
import { BUILTIN_PATTERNS } from "./builtin-patterns.js";
import { cutParamsForPrompt, DEFAULT_CUT_LIMITS } from "./cut-for-prompt.js";
import { renderOtherFailures } from "./other-failures.js";

/**
 * RetryHandler (docs/retry.md#retry-prompt): renders `{c1}/{c2}/{c3}/f_{edition}_{adaptation}.md`
 * of the failing pattern with c2/c3 of the completion step; the renderer
 * applies the fallback chain of docs/definition.md#prompt-lookup. The params are cut for the prompt
 * (head and tail) and added to the run's variables with the retry variables
 * (`pattern`, `attempt`, `failureDetails`, and `otherFailures`: what else the same check found,
 * docs/retry.md#also-found).
 * A param the pattern declares but the check did not extract (e.g. after a
 * timeout) is given as an empty string, so a strict template still renders.
 * A pattern neither the registry nor closer knows renders `f_failed_<name>`
 * with the params it has: the definition check reports it before a run.
 */
export async function buildRetryPrompt(request: RetryPromptRequest): Promise<RetryPrompt> {
  const { patternName } = request;
  const pattern = request.patterns[patternName] ?? BUILTIN_PATTERNS[patternName];
  const paramNames = pattern?.params ?? Object.keys(request.params);
  const declared = Object.fromEntries(paramNames.map((name) => [name, ""]));
  const { params, cuts } = cutParamsForPrompt(
    { ...declared, ...request.params },
    request.limits ?? DEFAULT_CUT_LIMITS,
  );
  const limits = request.limits ?? DEFAULT_CUT_LIMITS;
  const otherFailures = renderOtherFailures(request.others, limits);
  const rendered = await request.render({
    agentDir: request.agentDir,
    words: {
      c1: request.c1,
      c2: request.completionStep.c2,
      c3: request.completionStep.c3,
      edition: pattern?.edition ?? "failed",
      adaptation: pattern?.adaptation ?? patternName,
    },
    variables: {
      ...request.variables,
      ...params,
      pattern: patternName,
      attempt: request.attempt,
      failureDetails: renderParams(params),
      otherFailures,
    },
    // The built-in texts read the params they are given: the others join them when found.
    retry: {
      pattern: patternName,
      params: otherFailures ? [...paramNames, "otherFailures"] : paramNames,
    },
  });
  return {
    text: rendered.text,
    kind: patternName === BUILTIN_PATTERN_NAMES.formatError ? "format-retry" : "retry",
    pattern: patternName,
    templatePath: rendered.templatePath,
    cuts,
  };
}

/** What the loop does after a failed completion check. */
export type FailureAction = "retry" | "retries_exhausted" | "aborted" | "skip";

/**
 * `onFailure` (docs/retry.md#on-failure). `failedChecks` is the number of consecutive failed
 * completion checks *including the one just failed* (1 on the first failure).
 * A failed check is a declaration whose validators, closure review or
 * external conditions did not all hold; format errors and undecidable
 * declarations have their own counters and do not count here.
 *
 * - `retry`: `maxAttempts` is the number of completion checks that may fail
 *   in a row. Failed checks 1..maxAttempts-1 each get a retry prompt; failed
 *   check maxAttempts ends the run with `retries_exhausted` ("checks fail
 *   maxAttempts times"). With the default 3, two retries are sent and the
 *   third failure ends the run.
 * - `abort`: the first failed check ends the run with `aborted`.
 * - `skip`: the failure is accepted; the run ends `completed` with a warning.
 */
export function decideOnFailure(onFailure: OnFailure, failedChecks: number): FailureAction {
  if (onFailure.action === "abort") return "aborted";
  if (onFailure.action === "skip") return "skip";
  return failedChecks >= onFailure.maxAttempts ? "retries_exhausted" : "retry";
}

/**
 * Format errors (docs/retry.md#format-retries). `formatFailures` counts consecutive format errors
 * *including this one*. Failures 1..maxFormatRetries get a `format-error`
 * retry; past the limit the loop records a warning and goes on to condition
 * checking (`proceed`) instead of ending the run.
 */
export function decideOnFormatError(
  formatFailures: number,
  maxFormatRetries: number,
): "retry" | "proceed" {
  return formatFailures > maxFormatRetries ? "proceed" : "retry";
}
