/**
 * The ports a replay runs the loop with (docs/replay.md#replay): every answer
 * comes from the record, nothing is executed. The backend plays the recorded
 * answers in order (retryable failures included, so repeats replay), the
 * checks give the recorded `validator-end` outcomes, the integrity probe
 * reports what the recorded guards found, and the clock advances with the
 * recorded durations. What the record lacks stops the replay (`shortfall`).
 */

import { errorResponse, makeBackendError } from "../backends/backend-errors.js";
import { turnFromTranscript } from "../backends/replay/transcript-turn.js";
import { BASELINE_CHECK_ID } from "../loop/baseline-checks.js";
import { isPlainObject } from "../plain-object.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend, BackendError, BackendResponse } from "../ports/backend.js";
import type { FileSnapshot } from "../ports/files.js";
import type { IntegrityProbe, SandboxPort } from "../ports/loop-ports.js";
import type { JsonSchema } from "../ports/runner-config.js";
import type { ValidatorOutcome, ValidatorRunner } from "../ports/validator.js";
import { num } from "../record/loose-json.js";
import { unknownValidatorOutcome } from "../validators/run-validator.js";
import { makeRecordedDecisionFile } from "./recorded-decision-file.js";
import { outcomeOf, withPatternOf } from "./recorded-outcome.js";
import { makeRecordedProbe } from "./recorded-probe.js";
import type { RecordedEvent, RecordedRun, RedecideCursor } from "./recorded-run.js";
import { makeRecordedSandbox, refusalsAfter } from "./recorded-sandbox.js";
import {
  type MemoryRecord,
  makeMemoryRecord,
  makeVirtualClock,
  type VirtualClock,
} from "./virtual-clock-and-record.js";

/** One recorded query: its `backend-end` and the label of its transcript. */
interface RecordedQuery {
  readonly event: RecordedEvent;
  readonly label?: string;
  /** The run's abort came during this query (the last attempt's). */
  readonly abortsRun: boolean;
  /** The `sandbox-refused` lines of the backend recorded right after this query. */
  readonly refusals: readonly string[];
}

export interface RecordedPorts {
  readonly backend: Backend;
  readonly validatorRunner: ValidatorRunner;
  readonly integrity: IntegrityProbe;
  readonly readFile: (path: string) => Promise<FileSnapshot | undefined>;
  readonly sandbox?: SandboxPort;
  readonly clock: VirtualClock;
  readonly record: MemoryRecord;
  readonly cursor: RedecideCursor;
}

export function makeRecordedPorts(
  recorded: RecordedRun,
  agent: ResolvedAgent,
  abort: AbortController,
): RecordedPorts {
  const cursor: RedecideCursor = { iteration: 0 };
  const clock = makeVirtualClock(num(recorded.events[0]?.at) ?? 0);
  const stop = (missing: string) => {
    cursor.shortfall ??= { iteration: cursor.iteration, missing };
    abort.abort(new Error(`replay: ${missing}`));
  };
  const abortPoint = lastAttemptAbortPoint(recorded.events);
  return {
    backend: makeRecordedBackend(recorded, recordedQueries(recorded.events, abortPoint), {
      cursor,
      clock,
      abort,
      stop,
    }),
    validatorRunner: makeRecordedValidators(recorded, agent, {
      cursor,
      clock,
      abort,
      stop,
      abortPoint,
    }),
    integrity: makeRecordedProbe(recorded, cursor),
    readFile: makeRecordedDecisionFile(recorded, cursor),
    ...(recorded.events.some((event) => event.type === "sandbox" && event.on === true)
      ? { sandbox: makeRecordedSandbox(cursor) }
      : {}),
    clock,
    record: makeMemoryRecord(recorded.runDir),
    cursor,
  };
}

interface Shared {
  readonly cursor: RedecideCursor;
  readonly clock: VirtualClock;
  readonly abort: AbortController;
  stop(missing: string): void;
}

/** The index of the recorded event the last attempt's abort interrupted (a query's or a check's end). */
function lastAttemptAbortPoint(events: readonly RecordedEvent[]): number | undefined {
  const lastStart = events.findLastIndex((event) => event.type === "run-start");
  const abortAt = events.findIndex((event, index) => index > lastStart && event.type === "abort");
  if (abortAt < 0) return undefined;
  const next = events.findIndex(
    (event, index) =>
      index > abortAt && (event.type === "backend-end" || event.type === "validator-end"),
  );
  if (next >= 0) return next;
  // Aborted between a query and a check: after the last answer before it.
  return events.findLastIndex(
    (event, index) =>
      index < abortAt && (event.type === "backend-end" || event.type === "validator-end"),
  );
}

function recordedQueries(
  events: readonly RecordedEvent[],
  abortPoint: number | undefined,
): RecordedQuery[] {
  const lastStart = events.findLastIndex((event) => event.type === "run-start");
  const queries: RecordedQuery[] = [];
  let promptKind = "";
  events.forEach((event, index) => {
    if (event.type === "prompt") promptKind = String(event.kind ?? "");
    if (event.type !== "backend-end") return;
    const error = isPlainObject(event.error) ? event.error : undefined;
    // An earlier attempt's interrupted query is an attempt boundary, not an answer.
    if (error?.kind === "aborted" && index < lastStart) return;
    queries.push({
      event,
      ...(promptKind === "closure-review" ? { label: "closure-review" } : {}),
      abortsRun: index === abortPoint,
      refusals: refusalsAfter(events, index),
    });
  });
  return queries;
}

function makeRecordedBackend(
  recorded: RecordedRun,
  queries: readonly RecordedQuery[],
  shared: Shared,
): Backend {
  let next = 0;
  return {
    name: "replay",
    enforcesSchema: true,
    async query(request) {
      const query = queries[next];
      if (query === undefined) {
        shared.stop(`a query past the ${queries.length} recorded`);
        return errorResponse(makeBackendError("aborted", "the record has no more answers"));
      }
      next += 1;
      const { event } = query;
      const iteration = num(event.iteration) ?? 0;
      if (query.label === undefined) shared.cursor.iteration = iteration;
      const durationMs = num(event.durationMs) ?? 0;
      shared.clock.advance(durationMs);
      shared.cursor.refusals = query.refusals;
      if (query.abortsRun) shared.abort.abort(new Error("the recorded run was aborted here"));
      if (request.signal.aborted && !query.abortsRun) {
        return errorResponse(makeBackendError("aborted", "aborted"));
      }
      const facts = {
        costUsd: num(event.costUsd) ?? 0,
        durationMs,
        ...(typeof event.sessionId === "string" ? { sessionId: event.sessionId } : {}),
      };
      const error = isPlainObject(event.error)
        ? (event.error as unknown as BackendError)
        : undefined;
      // A query out of turns answered all the same: the loop reads it (docs/loop.md#error-classes).
      if (error !== undefined && error.kind !== "max_turns") return errorResponse(error, facts);
      if (query.label === undefined) {
        shared.cursor.checkId = request.env.CLOSER_CHECK_ID;
        shared.cursor.answeredUnread = iteration;
      }
      const answer = await recordedAnswer(recorded, query, request.schema);
      return { ...answer, transcript: [], ...facts, ...(error === undefined ? {} : { error }) };
    },
  };
}

/** The answer as the backend gave it, read from the query's transcript (docs/replay.md#backends). */
async function recordedAnswer(
  recorded: RecordedRun,
  query: RecordedQuery,
  schema: JsonSchema | undefined,
): Promise<Pick<BackendResponse, "text" | "structuredOutput" | "toolsUsed">> {
  const { event } = query;
  const transcript = await recorded.transcript(num(event.iteration) ?? 0, query.label);
  const turn =
    transcript === undefined
      ? {}
      : turnFromTranscript(transcript, recorded.cwd, {
          ...(typeof event.hasStructuredOutput === "boolean"
            ? { hasStructuredOutput: event.hasStructuredOutput }
            : {}),
          ...(schema === undefined ? {} : { schema }),
        });
  return {
    ...(turn.structuredOutput === undefined ? {} : { structuredOutput: turn.structuredOutput }),
    text:
      turn.text ??
      (turn.structuredOutput === undefined ? "" : JSON.stringify(turn.structuredOutput)),
    toolsUsed: turn.toolsUsed ?? [],
  };
}

function makeRecordedValidators(
  recorded: RecordedRun,
  agent: ResolvedAgent,
  shared: Shared & { readonly abortPoint: number | undefined },
): ValidatorRunner {
  const queues = new Map<string, { event: RecordedEvent; index: number }[]>();
  recorded.events.forEach((event, index) => {
    if (event.type !== "validator-end") return;
    const key = `${num(event.iteration) ?? 0}:${String(event.validator)}`;
    const queue = queues.get(key) ?? [];
    queue.push({ event, index });
    queues.set(key, queue);
  });
  return async (name, context) => {
    if (context.checkId === BASELINE_CHECK_ID) return baselineOutcome(recorded, name);
    const iteration = shared.cursor.iteration;
    const found = queues.get(`${iteration}:${name}`)?.shift();
    if (found === undefined) {
      shared.stop(`the outcome of validator ${name}, which the record does not have`);
      return { validator: name, valid: false, params: {}, durationMs: 0, aborted: true };
    }
    const definition = agent.registry.validators[name];
    if (definition === undefined) return unknownValidatorOutcome(name);
    const outcome = withPatternOf(
      definition.failurePattern,
      await outcomeOf(recorded.runDir, found.event),
    );
    shared.clock.advance(outcome.durationMs);
    if (found.index === shared.abortPoint) {
      shared.abort.abort(new Error("the recorded run was aborted here"));
    }
    return outcome;
  };
}

/** A check of the baseline, when the record has none to start from: its verdict only. */
function baselineOutcome(recorded: RecordedRun, name: string): ValidatorOutcome {
  const event = recorded.events.find((candidate) => candidate.type === "baseline");
  const checks = Array.isArray(event?.checks) ? event.checks : [];
  const check = checks.find((entry) => isPlainObject(entry) && entry.validator === name);
  const valid = isPlainObject(check) && check.valid === true;
  return { validator: name, valid, params: {}, durationMs: 0 };
}
