import { describeOutcome } from "../completion/check-failure.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { CutLimits } from "../ports/prompts.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { renderParams } from "../prompts/variables.js";
import { cutParamsForPrompt, DEFAULT_CUT_LIMITS } from "./cut-for-prompt.js";

/** Each failing validator outcome as a failure of its own, in condition order. */
export function outcomeFailures(outcomes: readonly ValidatorOutcome[]): CheckFailure[] {
  return outcomes
    .filter((outcome) => !outcome.valid)
    .map((outcome) => ({
      kind: "validator",
      name: outcome.validator,
      pattern: outcome.pattern ?? "failed",
      params: outcome.params,
      detail: oneLine(describeOutcome(outcome)),
      failedOutcomes: [outcome],
    }));
}

/**
 * The first failure found decides (its pattern selects the retry template); the others ride
 * along, so one retry names everything the iteration found (docs/retry.md#also-found).
 * Undefined when nothing failed.
 */
export function decideFailure(
  found: readonly (CheckFailure | undefined)[],
): CheckFailure | undefined {
  const [deciding, ...others] = found.filter((failure) => failure !== undefined);
  if (deciding === undefined) return undefined;
  return withOthers(deciding, others);
}

/** The failure with `others` added to the ones it already carries (none added: unchanged). */
export function withOthers(failure: CheckFailure, others: readonly CheckFailure[]): CheckFailure {
  const all = [
    ...(failure.others ?? []),
    ...others.flatMap((other) => [other, ...(other.others ?? [])]),
  ];
  if (all.length === 0) return failure;
  const flat = all.map(({ others: _nested, ...other }) => other);
  return { ...failure, others: flat };
}

/**
 * The `otherFailures` retry variable: each other failure's name, pattern and one-line detail,
 * with its params cut for the prompt; "" when there are none.
 */
export function renderOtherFailures(
  others: readonly CheckFailure[] | undefined,
  limits: CutLimits = DEFAULT_CUT_LIMITS,
): string {
  if (others === undefined || others.length === 0) return "";
  const blocks = others.map((other) => {
    const head = `- "${other.name}" failed (pattern "${other.pattern}"): ${other.detail}`;
    const { params } = cutParamsForPrompt(other.params, limits);
    if (Object.keys(params).length === 0) return head;
    return [head, indent(renderParams(params))].join("\n");
  });
  return ["The same check also found:", ...blocks].join("\n");
}

/** A detail is one line, as long as the validators' own (its params carry the rest). */
const DETAIL_MAX_CHARS = 200;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > DETAIL_MAX_CHARS ? `${flat.slice(0, DETAIL_MAX_CHARS - 3)}...` : flat;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
