import { isPlainObject } from "../plain-object.js";
import type { BackendError } from "../ports/backend.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { IterationSummary } from "../ports/run-state.js";
import { hasDeclaration } from "./completion-signal.js";
import type { CompletionDecision } from "./decide-completion.js";
import { type ResponseContent, readStructuredObject } from "./json-in-text.js";
import { describeRefutedClaims, refutedClaims } from "./refuted-claims.js";

/** The parts of a backend response the summary reads. */
export interface SummarySubject extends ResponseContent {
  readonly toolsUsed: readonly string[];
  readonly error?: Pick<BackendError, "message">;
}

/** What the harness found after the response. */
export interface IterationFindings {
  /** The decision read from the channels, when the iteration was a completion check. */
  readonly decision?: CompletionDecision;
  /** The gap that the next retry prompt is about. */
  readonly failure?: CheckFailure;
  /** Anything else worth telling the model (a format warning, a budget note). */
  readonly errors?: readonly string[];
}

const TEXT_SUMMARY_MAX_CHARS = 500;

/**
 * docs/loop.md#rule-3: what the model declared last time (status, next action,
 * reason, summary) next to what the harness found (the failed check and a
 * one-line detail), so the next prompt can show the gap between the two
 * (prompts' `renderIterationSummary` turns it into text).
 */
export function summarizeIteration(
  iteration: number,
  response: SummarySubject,
  findings: IterationFindings = {},
): IterationSummary {
  const declaration = readStructuredObject(response, hasDeclaration);
  const nextAction = isPlainObject(declaration?.next_action) ? declaration.next_action : undefined;
  const fromChannel = findings.decision !== undefined && isChannelDecision(findings.decision);
  const status =
    text(declaration?.status) ?? (fromChannel ? findings.decision?.decision : undefined);
  const reason =
    text(nextAction?.reason) ??
    text(declaration?.reason) ??
    (fromChannel ? findings.decision?.reasons?.join("; ") : undefined);
  const summary = text(declaration?.summary) ?? summarizeText(response.text);
  const errors = [
    ...(response.error === undefined ? [] : [response.error.message]),
    ...(findings.errors ?? []),
  ];
  const declared: IterationSummary = {
    iteration,
    ...(status === undefined ? {} : { status }),
    ...(text(nextAction?.action) === undefined ? {} : { nextAction: text(nextAction?.action) }),
    ...(reason === undefined || reason === "" ? {} : { reason }),
    ...(summary === undefined ? {} : { summary }),
    toolsUsed: [...response.toolsUsed],
    errors,
  };
  const { failure } = findings;
  return failure === undefined ? declared : withFailedCheck(declared, failure, declaration);
}

/**
 * An iteration's summary with the gap a check found beside what the model declared, and the
 * claims of its declaration that gap refutes (docs/completion.md#claims).
 */
export function addFailedCheck(
  summary: IterationSummary,
  failure: CheckFailure,
  response: ResponseContent,
): IterationSummary {
  return withFailedCheck(summary, failure, readStructuredObject(response, hasDeclaration));
}

function withFailedCheck(
  summary: IterationSummary,
  failure: CheckFailure,
  declaration: Record<string, unknown> | undefined,
): IterationSummary {
  // The failing validators told beside a guard refute the declaration's claims as well.
  const outcomes = [failure, ...(failure.others ?? [])].flatMap(
    (found) => found.failedOutcomes ?? [],
  );
  const claims = describeRefutedClaims(refutedClaims(declaration, outcomes));
  return {
    ...summary,
    failedCheck: { validator: failure.name, pattern: failure.pattern, detail: failure.detail },
    ...(claims.length === 0 ? {} : { refutedClaims: claims }),
  };
}

function isChannelDecision(decision: CompletionDecision): boolean {
  return (
    decision.decision !== "undecidable" &&
    (decision.source === "file-json" ||
      decision.source === "file-legacy" ||
      decision.source === "marker")
  );
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function summarizeText(responseText: string): string | undefined {
  const flat = responseText.replace(/\s+/g, " ").trim();
  if (flat === "") return undefined;
  return flat.length > TEXT_SUMMARY_MAX_CHARS
    ? `${flat.slice(0, TEXT_SUMMARY_MAX_CHARS - 3)}...`
    : flat;
}
