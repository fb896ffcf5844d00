/**
 * What the model reported about the checks, set against what they found
 * (docs/completion.md#claims): a declaration may carry `validation` booleans
 * (`tests_passed: true`) and `evidence` outputs (`type_check_output: "…"`).
 * closer never takes them as facts; a claim its own check refutes is named
 * in the retry prompt beside what the check found.
 */
import type { ValidatorOutcome } from "../ports/validator.js";
import { quoteOutput } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";

/** A claim about a check that the check itself refuted. */
export interface RefutedClaim {
  /** Where the claim is in the declaration: `validation.tests_passed`, `evidence.type_check_output`. */
  readonly claim: string;
  /** What the model reported: `true` for a validation claim, the text for evidence. */
  readonly reported: boolean | string;
  /** The validator the claim is about. */
  readonly validator: string;
  /** The validator's command, when it has one. */
  readonly command?: string;
  /** What the check found, in short. */
  readonly found: string;
}

const FOUND_MAX_CHARS = 400;

/** Words a claim's key may end with that only say "this check": `tests_passed`, `type_check_output`. */
const CLAIM_SUFFIX = /[_-](passed|passes|pass|ok|succeeded|output|result)$/i;

/**
 * The claims in `structuredOutput` that the failed outcomes refute, in the
 * order the declaration makes them. A claim is about the validator whose name
 * matches its key (docs/completion.md#claims); a claim about a check that
 * passed, did not run, was stopped, or that the model itself reported as
 * failing refutes nothing.
 */
export function refutedClaims(
  structuredOutput: unknown,
  outcomes: readonly ValidatorOutcome[],
): RefutedClaim[] {
  const failed = outcomes.filter((outcome) => !outcome.valid && outcome.aborted !== true);
  if (failed.length === 0 || !isRecord(structuredOutput)) return [];
  const refuted: RefutedClaim[] = [];
  for (const [section, wanted] of [
    ["validation", "boolean"],
    ["evidence", "string"],
  ] as const) {
    const claims = structuredOutput[section];
    if (!isRecord(claims)) continue;
    for (const [key, reported] of Object.entries(claims)) {
      if (typeof reported !== wanted || reported === false) continue;
      const outcome = failed.find((candidate) => claimNames(key, candidate));
      if (outcome === undefined) continue;
      refuted.push({
        claim: `${section}.${key}`,
        reported: reported as boolean | string,
        validator: outcome.validator,
        ...(outcome.command === undefined ? {} : { command: outcome.command }),
        found: foundBy(outcome),
      });
    }
  }
  return refuted;
}

/** One line per refuted claim: "you reported validation.tests_passed: true; `npm test` failed: …". */
export function describeRefutedClaims(claims: readonly RefutedClaim[]): string[] {
  return claims.map((claim) => {
    const check = claim.command === undefined ? claim.validator : `\`${claim.command}\``;
    return `you reported ${claim.claim}: ${JSON.stringify(claim.reported)}; ${check} failed: ${claim.found}`;
  });
}

/**
 * Whether a claim's key names the validator, both without a "this check"
 * ending and one plural s (`type_check_passed` ↔ `type-check`, `tests_passed`
 * ↔ `test` or `tests-pass`), or names the first two or more words of its
 * command (`git_status_output` ↔ `git status --porcelain`).
 */
function claimNames(key: string, outcome: ValidatorOutcome): boolean {
  const claimed = comparable(key);
  const named = comparable(outcome.validator);
  if (claimed === named || claimed === `${named}s` || `${claimed}s` === named) return true;
  const words = claimed.split("-");
  const command = outcome.command?.trim().toLowerCase().split(/\s+/) ?? [];
  return words.length >= 2 && command.slice(0, words.length).join("-") === claimed;
}

function comparable(name: string): string {
  return name
    .replace(CLAIM_SUFFIX, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, "-");
}

/** What a failed outcome found: the meaningful lines of its output, else its pattern. */
function foundBy(outcome: ValidatorOutcome): string {
  if (outcome.timedOut === true) return "it timed out";
  const output = quoteOutput(joinOutput(outcome.stdout ?? "", outcome.stderr ?? ""));
  if (output !== "") return shorten(output);
  const exit = outcome.exitCode === undefined ? "" : ` (exit ${outcome.exitCode})`;
  return `${outcome.pattern ?? "failed"}${exit}`;
}

function shorten(oneLine: string): string {
  return oneLine.length <= FOUND_MAX_CHARS ? oneLine : `${oneLine.slice(0, FOUND_MAX_CHARS)}…`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
