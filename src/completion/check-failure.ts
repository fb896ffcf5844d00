import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import type { ResponseFormat } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { quoteOutput } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import type { CompletionDecision } from "./decide-completion.js";
import type { CompletionCheck } from "./judge-outcomes.js";
import { describeFormat, type FormatCheck } from "./validate-format.js";

const DETAIL_MAX_CHARS = 200;
/** Lines of a check's output a one-line detail quotes (docs/completion.md#quoted-output). */
const QUOTED_LINES = 3;

type FailedCompletionCheck = Extract<CompletionCheck, { valid: false }>;

export function formatFailure(check: FormatCheck, format: ResponseFormat): CheckFailure {
  const formatError = check.error ?? "the response does not have the expected format";
  return {
    kind: "format",
    name: "response-format",
    pattern: BUILTIN_PATTERN_NAMES.formatError,
    params: { formatError, expectedFormat: describeFormat(format) },
    detail: oneLine(formatError),
  };
}

export function undecidableFailure(decision: CompletionDecision): CheckFailure {
  return {
    kind: "decision",
    name: "decision",
    pattern: BUILTIN_PATTERN_NAMES.undecidable,
    params: {
      decisionSource: decision.source,
      decisionReason: `${decision.reason ?? "undecidable"}: ${decision.detail}`,
    },
    detail: oneLine(`${decision.source}: ${decision.detail}`),
  };
}

/** A failed completion check: the first failing validator decides, the others are named in the detail. */
export function validationFailure(check: FailedCompletionCheck): CheckFailure {
  const [first, ...others] = check.failures;
  const found = first === undefined ? "failed" : describeOutcome(first);
  const also = others.map((outcome) => outcome.validator);
  return {
    kind: "validator",
    name: check.validator,
    pattern: check.pattern,
    params: check.params,
    detail: oneLine(`${found}${also.length > 0 ? ` (also failing: ${also.join(", ")})` : ""}`),
    failedOutcomes: check.failures,
  };
}

/** A checklist item the review did not find done, with its evidence. */
export interface UndoneItem {
  readonly item: string;
  readonly evidence: string;
}

/** The closure review rejected the work (docs/completion.md#closure-review). */
export function reviewFailure(
  pendingActions: readonly string[],
  notDone: readonly UndoneItem[] = [],
): CheckFailure {
  return {
    kind: "closure-review",
    name: "closure-review",
    pattern: BUILTIN_PATTERN_NAMES.reviewRejected,
    params: {
      pendingActions,
      checklist: notDone.map((entry) => `${entry.item}: ${entry.evidence}`),
    },
    detail: oneLine(
      pendingActions.length === 0
        ? "the closure review is not complete"
        : `pending: ${pendingActions.join("; ")}`,
    ),
  };
}

export function externalFailure(condition: string, detail: string | undefined): CheckFailure {
  const text = detail ?? "not met";
  return {
    kind: "external",
    name: condition,
    pattern: BUILTIN_PATTERN_NAMES.externalCondition,
    params: { condition, detail: text },
    detail: oneLine(`${condition}: ${text}`),
  };
}

/**
 * What a validator found, in one line: the first param that says something
 * (failed test names, changed files, compiler errors, an output's meaningful
 * lines), else the exit code with the meaningful lines of what it printed.
 */
export function describeOutcome(outcome: ValidatorOutcome): string {
  if (outcome.configError !== undefined) return `configuration error: ${outcome.configError}`;
  if (outcome.timedOut === true) return "timed out";
  for (const [name, value] of Object.entries(outcome.params)) {
    const said = describeValue(value);
    if (said !== undefined) return `${name}: ${said}`;
  }
  const printed = quoteOutput(joinOutput(outcome.stdout ?? "", outcome.stderr ?? ""), QUOTED_LINES);
  const quoted = printed === "" ? "" : `: ${printed}`;
  if (outcome.exitCode !== undefined) return `exit code ${outcome.exitCode}${quoted}`;
  return printed === "" ? "failed" : `failed${quoted}`;
}

function describeValue(value: unknown): string | undefined {
  if (typeof value === "string") {
    const quoted = quoteOutput(value, QUOTED_LINES);
    return quoted === "" ? undefined : quoted;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const names = value.slice(0, 3).map(describeItem);
  const more = value.length - names.length;
  return `${names.join(", ")}${more > 0 ? ` (+${more} more)` : ""}`;
}

function describeItem(item: unknown): string {
  if (typeof item !== "object" || item === null) return String(item);
  const fields = item as Record<string, unknown>;
  if (typeof fields.name === "string") return fields.name;
  if (typeof fields.file === "string") {
    const where = fields.line === undefined ? fields.file : `${fields.file}:${String(fields.line)}`;
    return typeof fields.message === "string" ? `${where} ${fields.message}` : where;
  }
  return JSON.stringify(item);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, " ").trim();
  return flat.length > DETAIL_MAX_CHARS ? `${flat.slice(0, DETAIL_MAX_CHARS - 3)}...` : flat;
}
