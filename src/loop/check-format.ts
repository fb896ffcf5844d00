import { formatFailure } from "../completion/check-failure.js";
import { validateFormat } from "../completion/validate-format.js";
import type { BackendResponse } from "../ports/backend.js";
import type { ResponseFormat } from "../ports/registry.js";
import { decideOnFormatError } from "../retry/retry-prompt.js";
import { queueRetry } from "./end-iteration.js";
import { emit, type RunContext, updateState, warn } from "./run-context.js";
import type { Turn } from "./start-iteration.js";

/**
 * FormatValidator (docs/completion.md#format-check), only when the completion step has a
 * `responseFormat` or an `outputSchemaRef` (the schema its declaration must match,
 * docs/completion.md#completion-prompt): a response without it gets a `format-error` retry,
 * up to `maxFormatRetries` in a row; past that a warning is recorded and the
 * checks run anyway. Returns "retry" when a format retry was queued.
 */
export async function checkFormat(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<"retry" | "checked"> {
  const ref = turn.completionStep?.outputSchemaRef;
  const format: ResponseFormat | undefined =
    turn.completionStep?.responseFormat ??
    (ref === undefined ? undefined : { type: "json", requiredFields: [] });
  if (turn.completionStep === undefined || format === undefined) return "checked";
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
  if (check.valid) return "checked";
  const maxFormatRetries = turn.completionStep.maxFormatRetries;
  if (decideOnFormatError(formatRetries, maxFormatRetries) === "proceed") {
    warn(
      run,
      turn.iteration,
      `format still wrong after ${maxFormatRetries} format retries (${check.error}); checking anyway`,
    );
    return "checked";
  }
  const failure = formatFailure(check, format);
  await queueRetry(run, turn, response, {
    failure,
    attempt: formatRetries,
    maxAttempts: maxFormatRetries,
  });
  return "retry";
}
