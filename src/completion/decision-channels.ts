import { isPlainObject } from "../plain-object.js";
import type { ChannelReading } from "../ports/declaration.js";
import type { FileSnapshot } from "../ports/files.js";
import type { CompletionSignalConfig } from "../ports/registry.js";
import { hasDeclaration, readCompletionSignal } from "./completion-signal.js";
import { readDecisionFile } from "./decision-file.js";
import { type ResponseContent, readStructuredObject } from "./json-in-text.js";

export interface ChannelInput extends ResponseContent {
  /** The decision file as read just after the backend answered. */
  readonly decisionFile?: FileSnapshot;
  readonly completionSignal: CompletionSignalConfig;
  readonly checkId: string;
  readonly checkStartedAtMs: number;
}

/** One answer and the decision file as it was before and after the query that produced it. */
export interface AnswerToRead {
  readonly response: ResponseContent;
  readonly decisionFileBefore?: FileSnapshot;
  readonly decisionFileAfter?: FileSnapshot;
}

/**
 * The channels' input for one answer. "Written after the check started" is
 * judged in the file system's own time, so a clock that differs from it (or a
 * test clock) can't make a fresh file look old: a file that did not exist
 * before the query, or changed during it, is fresh; one left exactly as it was
 * is older than the check.
 */
export function makeChannelInput(
  answer: AnswerToRead,
  context: { readonly completionSignal: CompletionSignalConfig; readonly checkId: string },
): ChannelInput {
  const { response, decisionFileBefore: before, decisionFileAfter: after } = answer;
  return {
    ...(response.structuredOutput === undefined
      ? {}
      : { structuredOutput: response.structuredOutput }),
    text: response.text,
    ...(after === undefined ? {} : { decisionFile: after }),
    completionSignal: context.completionSignal,
    checkId: context.checkId,
    checkStartedAtMs: checkStartInFileTime(before, after),
  };
}

function checkStartInFileTime(before?: FileSnapshot, after?: FileSnapshot): number {
  if (after === undefined || before === undefined) return Number.NEGATIVE_INFINITY;
  const changed = after.modifiedAtMs !== before.modifiedAtMs || after.text !== before.text;
  return changed ? after.modifiedAtMs : after.modifiedAtMs + 1;
}

const MARKER_LINE = /^(?:<promise>\s*(COMPLETE|INCOMPLETE)\s*<\/promise>|(COMPLETE|INCOMPLETE))$/;

/**
 * docs/completion.md#decision-channels: the channels in their fixed order. The first channel that says
 * anything decides; a decision file always says something once it exists
 * (even when stale), so a marker never overrides a file.
 *
 * A structured object (from the backend, or the last JSON object in the text)
 * takes part only when it carries a declaration (`status` or
 * `next_action.action`): JSON quoted in prose is not a verdict. A backend
 * structured output without any declaration still means the model answered
 * in its schema, so when no later channel speaks it reads as `incomplete`.
 */
export function readDecisionChannels(input: ChannelInput): ChannelReading {
  const structured = readStructured(input);
  if (structured !== undefined && structured.reason !== "no-declaration") return structured;
  if (input.decisionFile !== undefined) return readDecisionFile(input.decisionFile, input);
  const marker = readMarker(input.text);
  if (marker !== undefined) return marker;
  return (
    structured ?? {
      source: "none",
      decision: "undecidable",
      reason: "no-decision",
      detail:
        "no structured declaration, no decision file and no COMPLETE/INCOMPLETE line in the final text",
    }
  );
}

function readStructured(input: ChannelInput): ChannelReading | undefined {
  const output = input.structuredOutput;
  if (output !== undefined && output !== null && !isPlainObject(output)) {
    return {
      source: "structured",
      decision: "undecidable",
      reason: "structured-output-not-object",
      detail: `the structured output is ${Array.isArray(output) ? "an array" : typeof output}, not an object`,
    };
  }
  const object = readStructuredObject(input, hasDeclaration);
  if (object === undefined) return undefined;
  if (!hasDeclaration(object)) {
    return {
      source: "structured",
      decision: "incomplete",
      reason: "no-declaration",
      detail: "the structured output has no status and no next_action",
    };
  }
  const source = isPlainObject(output) ? "structured" : "structured-from-text";
  return fromSignal(source, object, input.completionSignal);
}

function fromSignal(
  source: "structured" | "structured-from-text",
  output: Record<string, unknown>,
  config: CompletionSignalConfig,
): ChannelReading {
  const signal = readCompletionSignal(output, config);
  const said = [
    signal.status === undefined ? undefined : `status "${signal.status}"`,
    signal.action === undefined ? undefined : `next action "${signal.action}"`,
  ].filter((part) => part !== undefined);
  return {
    source,
    decision:
      signal.blockedReason !== undefined ? "blocked" : signal.declared ? "complete" : "incomplete",
    ...(signal.status === undefined ? {} : { status: signal.status }),
    ...(signal.action === undefined ? {} : { action: signal.action }),
    ...(signal.blockedReason === undefined ? {} : { blockedReason: signal.blockedReason }),
    detail: `declared ${said.join(" and ")}`,
  };
}

/** The last line that is only COMPLETE or INCOMPLETE (upper case, optionally in `<promise>` tags). */
function readMarker(text: string): ChannelReading | undefined {
  let decision: "complete" | "incomplete" | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = MARKER_LINE.exec(line.trim());
    const word = match?.[1] ?? match?.[2];
    if (word !== undefined) decision = word === "COMPLETE" ? "complete" : "incomplete";
  }
  return decision === undefined
    ? undefined
    : { source: "marker", decision, detail: `marker line: ${decision.toUpperCase()}` };
}
