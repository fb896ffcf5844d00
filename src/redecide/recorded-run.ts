/**
 * A recorded run folder as the replay reads it (docs/replay.md#replay): its
 * events, task, baseline and definition snapshot. A folder that lacks what a
 * replay needs is refused with the file and what is missing.
 */
import path from "node:path";
import { CloserError } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import type { Baseline } from "../ports/baseline.js";
import type { TaskInfo } from "../ports/run-state.js";
import {
  readRequiredEvents,
  readRunFileText,
  readTranscript,
  runFilePath,
} from "../record/run-folder-reader.js";

/** One event of events.jsonl, as written. */
export type RecordedEvent = Readonly<Record<string, unknown>> & { readonly type: string };

export interface RecordedRun {
  readonly runDir: string;
  readonly events: readonly RecordedEvent[];
  readonly task: TaskInfo;
  readonly args: Readonly<Record<string, unknown>>;
  readonly baseline?: Baseline;
  /** The agent's name and the working tree, from the first `run-start`. */
  readonly agentName: string;
  readonly cwd: string;
  /** The cap on iterations of the last attempt (its `run-start`). */
  readonly maxIterations: number;
  /** A transcript of the run (`iteration-NNN[-label].json[.gz]`), parsed; undefined when absent. */
  transcript(iteration: number, label?: string): Promise<unknown>;
}

/** Reads the run folder; throws a `record_error` naming the file when it cannot be replayed. */
export async function readRecordedRun(runDir: string): Promise<RecordedRun> {
  const eventsFile = runFilePath(runDir, "events");
  const events = (
    await mustRead(eventsFile, "the run's events", () => readRequiredEvents(runDir))
  ).filter((event): event is RecordedEvent => typeof event.type === "string");
  const starts = events.filter((event) => event.type === "run-start");
  const first = starts[0];
  const last = starts.at(-1);
  if (first === undefined || last === undefined) {
    throw unreplayable(eventsFile, "a run-start event", "none");
  }
  if (!events.some((event) => event.type === "run-end")) {
    throw unreplayable(
      eventsFile,
      "a run-end event (a run that ended)",
      "none: the run did not end",
    );
  }
  const taskFile = runFilePath(runDir, "task");
  const taskText = await mustRead(taskFile, "the run's task", () =>
    readRunFileText(runDir, "task"),
  );
  const started = parseJson(taskText, taskFile);
  if (!isPlainObject(started) || !isPlainObject(started.task)) {
    throw unreplayable(taskFile, "{task, args}", "no task");
  }
  const baselineFile = runFilePath(runDir, "baseline");
  const baselineText = await readRunFileText(runDir, "baseline").catch(() => undefined);
  return {
    runDir,
    events,
    task: started.task as unknown as TaskInfo,
    args: isPlainObject(started.args) ? started.args : {},
    ...(baselineText === undefined
      ? {}
      : { baseline: parseJson(baselineText, baselineFile) as Baseline }),
    agentName: String(first.agent ?? ""),
    cwd: String(first.cwd ?? runDir),
    maxIterations: typeof last.maxIterations === "number" ? last.maxIterations : 0,
    transcript: (iteration, label) => parsedTranscript(runDir, iteration, label),
  };
}

/** A transcript parsed; undefined when the run kept none. */
async function parsedTranscript(runDir: string, iteration: number, label?: string) {
  const kept = await readTranscript(runDir, iteration, label);
  return kept === undefined ? undefined : parseJson(kept.text, path.join(runDir, kept.file));
}

/** What `read` gives, or a `record_error` naming `file` when it cannot be read. */
async function mustRead<T>(file: string, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new CloserError("record_error", `${what} cannot be read: the run cannot be replayed`, {
      file,
      found: (error as Error).message,
      expected: "a run folder written by closer run",
      fix: "name a run id from the runs folder (closer replay <run-id> --runs-dir DIR)",
      cause: error,
    });
  }
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw unreplayable(file, "JSON", (error as Error).message);
  }
}

function unreplayable(file: string, expected: string, found: string): CloserError {
  return new CloserError("record_error", "the run cannot be replayed: its record is incomplete", {
    file,
    expected,
    found,
    fix: "replay a run that ended, with its events.jsonl, task.json and transcripts",
  });
}

/** Where the replay is, shared by its ports: the iteration of the last work query served. */
export interface RedecideCursor {
  iteration: number;
  /** The check id the replayed loop gave the last work query. */
  checkId?: string;
  /** The iteration whose answer came and whose decision file is not read yet. */
  answeredUnread?: number;
  /** What the OS sandbox refused the model during the last query served, as recorded. */
  refusals?: readonly string[];
  /** What the new code asked for that the record does not have; the replay stopped there. */
  shortfall?: { readonly iteration: number; readonly missing: string };
}
