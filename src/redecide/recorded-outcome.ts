/** A check's outcome as the record kept it (docs/replay.md#replay). */
import { isPlainObject } from "../plain-object.js";
import { BUILTIN_PATTERN_NAMES } from "../ports/check-failure.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { readPayload } from "../record/run-folder-reader.js";
import type { RecordedEvent } from "./recorded-run.js";

const OUTCOME_FIELDS = [
  "pattern",
  "command",
  "exitCode",
  "stdout",
  "stderr",
  "timedOut",
  "aborted",
  "configError",
  "flaky",
] as const;

/** The outcome a `validator-end` event records, its texts whole from their payload files. */
export async function outcomeOf(runDir: string, event: RecordedEvent): Promise<ValidatorOutcome> {
  const outcome: Record<string, unknown> = {
    validator: String(event.validator),
    valid: event.valid === true,
    params: isPlainObject(event.params) ? event.params : {},
    durationMs: typeof event.durationMs === "number" ? event.durationMs : 0,
  };
  for (const field of OUTCOME_FIELDS) {
    if (event[field] !== undefined) outcome[field] = event[field];
  }
  // A text over the field cap is whole in its payload file (docs/record.md#bounded-record).
  const payloads = isPlainObject(event.payloads) ? event.payloads : {};
  for (const [field, file] of Object.entries(payloads)) {
    if (typeof file !== "string" || !["stdout", "stderr"].includes(field)) continue;
    const whole = await readPayload(runDir, file);
    if (whole !== undefined) outcome[field] = whole;
  }
  return outcome as unknown as ValidatorOutcome;
}

/**
 * A failed check's pattern is the one the definition replayed with names for its validator (the
 * record's was its own definition's); a pattern closer gives itself stays.
 */
export function withPatternOf(failurePattern: string, outcome: ValidatorOutcome): ValidatorOutcome {
  const builtin: readonly string[] = Object.values(BUILTIN_PATTERN_NAMES);
  if (outcome.valid || outcome.aborted === true || outcome.pattern === undefined) return outcome;
  if (builtin.includes(outcome.pattern)) return outcome;
  return { ...outcome, pattern: failurePattern };
}
