/**
 * Turns a recorded run folder back into replay turns. The answers come in the
 * order of the run's successful `backend-end` events; each is matched with the
 * transcript the run kept for that query (`transcripts/iteration-NNN[-label].json`).
 *
 * From a transcript the replay takes the final text, the structured output,
 * and the file changes it can re-apply: Claude's `Write`/`Edit`/`MultiEdit`
 * tool uses, opencode's `write`/`edit`, and everything a replayed run
 * recorded. Changes made by shell commands or by Codex patches are not in a
 * transcript and are not re-applied. Retryable failures of the recorded run
 * (rate limits, timeouts) are skipped; other failures are answered again.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { CloserError } from "../../errors.js";
import { parseJsonLines, stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import { RUN_FILES } from "../../record/run-files.js";
import { parseReplaySession, type ReplayTurn } from "./session.js";
import { turnFromTranscript } from "./transcript-turn.js";

interface RecordedQuery {
  readonly iteration: number;
  readonly event: Record<string, unknown>;
}

export async function readRunFolderTurns(runDir: string): Promise<ReplayTurn[]> {
  const eventsFile = path.join(runDir, RUN_FILES.events);
  const events = parseJsonLines(await readText(eventsFile));
  const start = events.find((event) => event.type === "run-start");
  const recordedCwd = stringOr(start?.cwd, runDir);
  const transcripts = await transcriptFiles(path.join(runDir, RUN_FILES.transcripts));
  const turns: ReplayTurn[] = [];
  const usedPerIteration = new Map<number, number>();
  for (const { iteration, event } of recordedQueries(events)) {
    const error = isPlainObject(event.error) ? event.error : undefined;
    if (error?.retryable === true) continue;
    if (error !== undefined) {
      turns.push(withEventFacts({}, event, eventsFile));
      continue;
    }
    // A repeated query of the same iteration overwrote the transcript of the failed one.
    const index = usedPerIteration.get(iteration) ?? 0;
    usedPerIteration.set(iteration, index + 1);
    const file = transcripts.get(iteration)?.[index];
    const fromTranscript =
      file === undefined ? {} : turnFromTranscript(await readJson(file), recordedCwd);
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

/** Transcript files per iteration: the query's own first, then the labelled extras. */
async function transcriptFiles(folder: string): Promise<Map<number, string[]>> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return new Map();
  }
  const found: { iteration: number; label: string; name: string }[] = [];
  for (const name of names) {
    const match = /^iteration-(\d+)(?:-(.+))?\.json$/.exec(name);
    if (match?.[1] === undefined) continue;
    found.push({ iteration: Number(match[1]), label: match[2] ?? "", name });
  }
  found.sort((a, b) => a.iteration - b.iteration || a.label.localeCompare(b.label));
  const byIteration = new Map<number, string[]>();
  for (const entry of found) {
    const list = byIteration.get(entry.iteration) ?? [];
    list.push(path.join(folder, entry.name));
    byIteration.set(entry.iteration, list);
  }
  return byIteration;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new CloserError("config_error", "the replay source is not a recorded run folder", {
      file,
      found: (error as Error).message,
      expected: `a run folder holding ${RUN_FILES.events}, or a session file`,
      fix: "point runner.backend.replayFrom at a run folder (under the runs folder) or a session JSON file",
      cause: error,
    });
  }
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new CloserError("config_error", "a transcript of the recorded run cannot be read", {
      file,
      found: (error as Error).message,
      fix: "the run record is damaged; replay another run",
      cause: error,
    });
  }
}
