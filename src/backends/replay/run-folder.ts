/**
 * Turns a recorded run folder back into replay turns. The answers come in the
 * order of the run's successful `backend-end` events; each is matched with the
 * transcript the run kept for that query (`transcripts/iteration-NNN[-label].json`).
 *
 * From a transcript the replay takes the final text, the structured output
 * (when the `backend-end` says the backend gave one), and the file changes it
 * can re-apply: Claude's `Write`/`Edit`/`MultiEdit` tool uses, opencode's and
 * the openai-compatible backend's `write`/`edit`, and everything a replayed run
 * recorded. Changes made by shell commands or by Codex patches are not in a
 * transcript and are not re-applied. Retryable failures of the recorded run
 * (rate limits, timeouts) are skipped; other failures are answered again.
 */
import path from "node:path";
import { CloserError } from "../../errors.js";
import { stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import {
  listTranscripts,
  readListedTranscript,
  readRequiredEvents,
  runFilePath,
} from "../../record/run-folder-reader.js";
import { parseReplaySession, type ReplayTurn } from "./session.js";
import { turnFromTranscript } from "./transcript-turn.js";

interface RecordedQuery {
  readonly iteration: number;
  readonly event: Record<string, unknown>;
}

export async function readRunFolderTurns(runDir: string): Promise<ReplayTurn[]> {
  const eventsFile = runFilePath(runDir, "events");
  const events = await readRequiredEvents(runDir).catch((error: unknown) => {
    throw notARunFolder(eventsFile, error);
  });
  const start = events.find((event) => event.type === "run-start");
  const recordedCwd = stringOr(start?.cwd, runDir);
  const transcripts = await listTranscripts(runDir);
  const turns: ReplayTurn[] = [];
  const usedPerIteration = new Map<number, number>();
  for (const { iteration, event } of recordedQueries(events)) {
    const error = isPlainObject(event.error) ? event.error : undefined;
    if (error?.retryable === true) continue;
    // A query out of turns is answered as it ended: the loop reads its declaration (docs/loop.md#error-classes).
    if (error !== undefined && error.kind !== "max_turns") {
      turns.push(withEventFacts({}, event, eventsFile));
      continue;
    }
    // A repeated query of the same iteration overwrote the transcript of the failed one.
    const index = usedPerIteration.get(iteration) ?? 0;
    usedPerIteration.set(iteration, index + 1);
    const file = transcripts.get(iteration)?.[index];
    const facts =
      typeof event.hasStructuredOutput === "boolean"
        ? { hasStructuredOutput: event.hasStructuredOutput }
        : {};
    const fromTranscript =
      file === undefined ? {} : turnFromTranscript(await readJson(file), recordedCwd, facts);
    turns.push(withEventFacts(fromTranscript, event, file ?? eventsFile));
  }
  if (turns.length === 0) {
    throw new CloserError("config_error", "the recorded run has no answers to replay", {
      file: eventsFile,
      expected: "backend-end events in events.jsonl",
      fix: "replay a run that reached the backend at least once, or a session file",
    });
  }
  return turns;
}

function recordedQueries(events: readonly Record<string, unknown>[]): RecordedQuery[] {
  return events
    .filter((event) => event.type === "backend-end" && typeof event.iteration === "number")
    .map((event) => ({ iteration: event.iteration as number, event }));
}

function withEventFacts(
  turn: ReplayTurn,
  event: Record<string, unknown>,
  file: string,
): ReplayTurn {
  const merged: Record<string, unknown> = { ...turn };
  if (typeof event.costUsd === "number") merged.costUsd = event.costUsd;
  if (typeof event.sessionId === "string") merged.sessionId = event.sessionId;
  if (isPlainObject(event.usage)) merged.usage = event.usage;
  if (isPlainObject(event.error)) merged.error = event.error;
  const [checked] = parseReplaySession({ turns: [merged] }, file);
  return checked ?? turn;
}

function notARunFolder(file: string, error: unknown): CloserError {
  return new CloserError("config_error", "the replay source is not a recorded run folder", {
    file,
    found: (error as Error).message,
    expected: `a run folder holding ${path.basename(file)}, or a session file`,
    fix: "point runner.backend.replayFrom at a run folder (under the runs folder) or a session JSON file",
    cause: error,
  });
}

async function readJson(file: string): Promise<unknown> {
  try {
    return await readListedTranscript(file);
  } catch (error) {
    throw new CloserError("config_error", "a transcript of the recorded run cannot be read", {
      file,
      found: (error as Error).message,
      fix: "the run record is damaged; replay another run",
      cause: error,
    });
  }
}
