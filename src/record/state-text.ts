import type { RunState } from "../ports/run-state.js";
import { stringifyBounded } from "./bounded-json.js";
import type { Redactor } from "./secret-redactor.js";

/** Stands for the baseline while the rest of the state is serialised; no recorded string is it. */
const BASELINE_MARK = "\u0000closer:baseline\u0000";
const BASELINE_FIELD = `"baseline": ${JSON.stringify(BASELINE_MARK)}`;

/**
 * run.json's text for a state: every string redacted and cut, two-space
 * indents (docs/record.md#write-path). The baseline, the largest part of the
 * state when the checks list many tests, never changes once it is taken: it
 * is serialised once per baseline and set into each later text as it is.
 */
export function makeStateText(
  redact: Redactor,
  maxFieldBytes: number,
): (state: RunState) => string {
  let kept: { readonly baseline: unknown; readonly json: string } | undefined;
  return (state) => {
    const { baseline } = state;
    if (baseline === undefined) return `${stringifyBounded(state, redact, maxFieldBytes, 2)}\n`;
    if (kept?.baseline !== baseline) {
      // Nested one level deep in run.json: each of its lines is indented two spaces more.
      const json = stringifyBounded(baseline, redact, maxFieldBytes, 2).replaceAll("\n", "\n  ");
      kept = { baseline, json };
    }
    const { json } = kept;
    const text = stringifyBounded({ ...state, baseline: BASELINE_MARK }, redact, maxFieldBytes, 2);
    return `${text.replace(BASELINE_FIELD, () => `"baseline": ${json}`)}\n`;
  };
}
