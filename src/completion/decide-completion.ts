import path from "node:path";
import { CloserError } from "../errors.js";
import type { ChannelReading } from "../ports/declaration.js";
import {
  type AnswerToRead,
  type ChannelInput,
  makeChannelInput,
  readDecisionChannels,
} from "./decision-channels.js";

/** Everything the decision needs, read by the loop after the backend answered. */
export interface DecisionInput extends ChannelInput {
  /** Accepted so a response can be passed whole, and never read: stderr is not a verdict. */
  readonly stderr?: string;
  /** Consecutive undecidable results before this one. */
  readonly previousUndecidableStreak: number;
  /** Undecidable results allowed in a row; the one past it ends the run. */
  readonly maxUndecidable: number;
}

/** The decision of one completion check (docs/completion.md#decision-channels), with its streak bookkeeping. */
export interface CompletionDecision extends ChannelReading {
  /** Consecutive undecidable results including this one; 0 after any decided result. */
  readonly undecidableStreak: number;
  /** The streak went past `maxUndecidable`: the run ends with status `error`. */
  readonly exhausted: boolean;
  /** When exhausted: the run's end reason, naming the source, the check id match and the reason. */
  readonly message?: string;
}

/**
 * Reads the declaration through the channels of docs/completion.md#decision-channels in their fixed
 * order (structured, structured-from-text, file-json, file-legacy, marker,
 * none) and counts undecidable results.
 *
 * Counting: an undecidable result adds one to the streak, a decided one
 * (complete or incomplete) resets it to 0. With `maxUndecidable` 3, the
 * first three undecidable results in a row each get a retry prompt; the
 * fourth is `exhausted`. A stale decision file is undecidable (reason
 * `check-id-mismatch` or `file-older-than-check`) and counts like any other.
 */
export function decideCompletion(input: DecisionInput): CompletionDecision {
  const reading = readDecisionChannels(input);
  const undecidableStreak =
    reading.decision === "undecidable" ? input.previousUndecidableStreak + 1 : 0;
  const exhausted = undecidableStreak > input.maxUndecidable;
  return {
    ...reading,
    undecidableStreak,
    exhausted,
    ...(exhausted ? { message: describeExhausted(reading, undecidableStreak, input) } : {}),
  };
}

/** The decision on one answer, read with the decision file as it was around the answer's query. */
export function decideAnswer(
  answer: AnswerToRead,
  context: Pick<
    DecisionInput,
    "completionSignal" | "checkId" | "previousUndecidableStreak" | "maxUndecidable"
  >,
): CompletionDecision {
  const { previousUndecidableStreak, maxUndecidable } = context;
  return decideCompletion({
    ...makeChannelInput(answer, context),
    previousUndecidableStreak,
    maxUndecidable,
  });
}

function describeExhausted(reading: ChannelReading, streak: number, input: DecisionInput): string {
  const match =
    reading.checkIdMatch === undefined
      ? "not given"
      : reading.checkIdMatch
        ? "matched"
        : `did not match (expected "${input.checkId}")`;
  return (
    `completion could not be decided ${streak} times in a row (limit ${input.maxUndecidable}): ` +
    `source ${reading.source}, check id ${match}, reason ${reading.reason ?? "none"} (${reading.detail})`
  );
}

/** A fresh check id, from the injected id source (`Clock.randomId`). */
export function makeCheckId(randomId: () => string): string {
  return `check-${randomId()}`;
}

/** Where a decision-path problem is configured, for the error message. */
export interface DecisionPathOrigin {
  /** The file that configures the decision path (e.g. agent.json). */
  readonly file?: string;
  /** Its JSON path, default `decisionFile`. */
  readonly jsonPath?: string;
}

/**
 * The absolute path of the decision file. A path that leaves the working tree
 * (or names the tree itself) is a configuration error (docs/completion.md#decision-file).
 */
export function resolveDecisionPath(
  cwd: string,
  decisionFile: string,
  origin: DecisionPathOrigin = {},
): string {
  const root = path.resolve(cwd);
  const absolute = path.resolve(root, decisionFile);
  const relative = path.relative(root, absolute);
  const inside =
    decisionFile.trim() !== "" &&
    relative !== "" &&
    relative !== ".." &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative);
  if (inside) return absolute;
  throw new CloserError("config_error", "the decision file must be inside the working tree", {
    ...(origin.file === undefined ? {} : { file: origin.file }),
    jsonPath: origin.jsonPath ?? "decisionFile",
    expected: "a file path relative to the working tree, without leaving it",
    found: JSON.stringify(decisionFile),
    fix: 'use a path such as ".closer/decision.json"',
  });
}
