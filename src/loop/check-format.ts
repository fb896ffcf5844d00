import { formatFailure } from "../completion/check-failure.js";
import { addFailedCheck } from "../completion/summarize-iteration.js";
import { validateFormat } from "../completion/validate-format.js";
import type { ResponseFormat } from "../ports/registry.js";
import { decideOnFormatError } from "../retry/retry-prompt.js";
import type { Answer } from "./read-declaration.js";
import { emit, type RunContext, updateState, warn } from "./run-context.js";
import type { Verdict } from "./verdict.js";

/**
 * FormatValidator (docs/completion.md#format-check), only when the completion step has a
 * `responseFormat` or an `outputSchemaRef` (the schema its declaration must match,
 * docs/completion.md#completion-prompt): a response without it gets a `format-error` retry,
 * up to `maxFormatRetries` in a row; past that a warning is recorded and the
 * checks run anyway. Returns the format error when a retry is due, else undefined.
 */
export async function checkFormat(
  run: RunContext,
  answer: Answer,
): Promise<Extract<Verdict, { kind: "format-error" }> | undefined> {
  const { turn, response } = answer;
  const ref = turn.completionStep?.outputSchemaRef;
  const format: ResponseFormat | undefined =
    turn.completionStep?.responseFormat ??
    (ref === undefined ? undefined : { type: "json", requiredFields: [] });
  if (turn.completionStep === undefined || format === undefined) return undefined;
  const schema = ref === undefined ? turn.query.schema : await run.ports.resolveSchema(ref);
  const check = validateFormat(response, format, {
    ...(schema === undefined ? {} : { schema }),
    validators: run.ports.schemaValidators,
  });
  const formatRetries = check.valid ? 0 : run.state.counters.formatRetries + 1;
  updateState(run, { counters: { ...run.state.counters, formatRetries } });
  emit(run, {
    type: "format-check",
    iteration: turn.iteration,
    valid: check.valid,
    ...(check.error === undefined ? {} : { error: check.error }),
    formatRetries,
  });
  if (check.valid) return undefined;
  const maxFormatRetries = turn.completionStep.maxFormatRetries;
  if (decideOnFormatError(formatRetries, maxFormatRetries) === "proceed") {
    warn(
      run,
      turn.iteration,
      `format still wrong after ${maxFormatRetries} format retries (${check.error}); checking anyway`,
    );
    return undefined;
  }
  const failure = formatFailure(check, format);
  const previousSummary = addFailedCheck(answer.summary, failure, response);
  const retry = { failure, attempt: formatRetries, maxAttempts: maxFormatRetries, previousSummary };
  return { kind: "format-error", retry };
}
