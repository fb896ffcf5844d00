import { formatFailure } from "../completion/check-failure.js";
import { addFailedCheck } from "../completion/summarize-iteration.js";
import { validateFormat } from "../completion/validate-format.js";
import type { ResponseFormat } from "../ports/registry.js";
import { decideOnFormatError } from "../retry/retry-prompt.js";
import type { ReadAnswer } from "./read-declaration.js";
import { emit, type RunContext, updateState, warn } from "./run-context.js";
import type { Verdict } from "./verdict.js";

/**
 * FormatValidator (docs/completion.md#format-check), only when the completion step has a
 * `responseFormat` or an `outputSchemaRef` (the schema its declaration must match,
 * docs/completion.md#completion-prompt): a response without it gets a `format-error` retry,
 * up to `maxFormatRetries` in a row; past that a warning is recorded and the
 * checks run anyway. A declaration read from the decision file is not checked against the
 * completion step's schema: only a `responseFormat` the step gives applies to it
 * (docs/completion.md#decision-file-over-format). Returns the format error when a retry is due,
 * else undefined.
 */
export async function checkFormat(
  run: RunContext,
  answer: ReadAnswer,
): Promise<Extract<Verdict, { kind: "format-error" }> | undefined> {
  const { turn, response } = answer;
  const ref = turn.completionStep?.outputSchemaRef;
  const given = turn.completionStep?.responseFormat;
  if (given === undefined && declaredInFile(answer)) return undefined;
  const format: ResponseFormat | undefined =
    given ?? (ref === undefined ? undefined : { type: "json", requiredFields: [] });
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

/**
 * The declaration was read from the decision file (docs/completion.md#decision-file-over-format):
 * a `complete` reading of `file-json` or `file-legacy` is by construction this check's own (its
 * check id matched, or the file was written during the query).
 */
function declaredInFile(answer: ReadAnswer): boolean {
  const { source, decision } = answer.decision;
  return decision === "complete" && (source === "file-json" || source === "file-legacy");
}
