import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { CloserError } from "../errors.js";
import type { RunEvent } from "../events.js";
import type { RecordSink } from "../ports.js";
import { RUN_STATE_VERSION, type RunState } from "./run-state.js";
import { makeRedactor, stringifyRedacted } from "./secret-redactor.js";

export { defaultRunsDir } from "./runs-dir.js";

/** File names inside a run folder. */
export const RUN_FILES = {
  state: "run.json",
  events: "events.jsonl",
  prompts: "prompts",
  transcripts: "transcripts",
  definition: "definition",
} as const;

export interface RunRecordOptions {
  /** The environment whose secrets never reach the record. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A RecordSink that also says when everything it was given is on disk. */
export interface RunRecord extends RecordSink {
  /** Resolves once every write asked for so far has finished; rejects if one failed. */
  flush(): Promise<void>;
}

/** `prompts/iteration-007.md`, `iteration-007-closure-review.md` for a labelled extra. */
function iterationFileName(iteration: number, extension: string, label?: string): string {
  const number = String(iteration).padStart(3, "0");
  return `iteration-${number}${label ? `-${label}` : ""}.${extension}`;
}

/**
 * The writer of one run folder: `events.jsonl` (one JSON line per event),
 * `run.json` (rewritten atomically: it is where a resumed run starts), and
 * the prompt and transcript of each iteration. Secrets of the environment
 * are redacted from everything written.
 *
 * Everything is written synchronously, so it is in the file system, and
 * survives the process being killed, once the call returns: an event is an
 * append of a few microseconds, a prompt or transcript a small new file.
 * (Handed to the thread pool, each of those files cost more CPU in the
 * round trips of open, write and close than the write itself.)
 *
 * run.json is a temp file written whole, then renamed over the old one: if
 * the process dies, the file holds either the previous state or the new one,
 * never a part of one. While the run is `running` that is all; the state of
 * an ended run (any other status) is also synced to the disk before it is
 * renamed into place, so the end of a run survives a crash of the machine
 * too. Syncing every iteration would make each one wait on the disk for a
 * state the next iteration replaces.
 *
 * A failed write rejects its own promise and is reported again by the next
 * `saveState` and by `flush`.
 */
export function createRunRecord(runDir: string, options: RunRecordOptions): RunRecord {
  const redact = makeRedactor(options.env);
  const eventsPath = join(runDir, RUN_FILES.events);
  const statePath = join(runDir, RUN_FILES.state);
  let foldersMade = false;
  let failure: unknown;
  let stateWrites: Promise<void> = Promise.resolve();

  const ensureFolders = () => {
    if (foldersMade) return;
    mkdirSync(join(runDir, RUN_FILES.prompts), { recursive: true });
    mkdirSync(join(runDir, RUN_FILES.transcripts), { recursive: true });
    foldersMade = true;
  };
  const writeNow = (write: () => void): Promise<void> => {
    try {
      ensureFolders();
      write();
      return Promise.resolve();
    } catch (error) {
      failure ??= error;
      return Promise.reject(error);
    }
  };
  const reportFailure = () => {
    if (failure !== undefined) throw failure;
  };
  const writeState = (state: RunState, text: string): Promise<void> =>
    state.status === "running"
      ? writeNow(() => replaceFileSync(statePath, text))
      : writeNow(() => undefined).then(() => writeFileAtomic(statePath, text));

  return {
    runDir,
    emit: (event: RunEvent) =>
      writeNow(() => appendFileSync(eventsPath, `${stringifyRedacted(event, redact)}\n`)),
    saveState: async (state: RunState) => {
      reportFailure();
      const text = `${stringifyRedacted(state, redact, 2)}\n`;
      // One write after another: a synced write of an ended run may still be under way.
      const written = stateWrites.then(() => writeState(state, text));
      stateWrites = written.catch((error: unknown) => {
        failure ??= error;
      });
      await written;
    },
    savePrompt: (iteration: number, prompt: string, label?: string) =>
      writeNow(() =>
        writeFileSync(
          join(runDir, RUN_FILES.prompts, iterationFileName(iteration, "md", label)),
          redact(prompt),
        ),
      ),
    saveTranscript: (iteration: number, transcript: readonly unknown[], label?: string) =>
      writeNow(() =>
        writeFileSync(
          join(runDir, RUN_FILES.transcripts, iterationFileName(iteration, "json", label)),
          `${stringifyRedacted(transcript, redact, 2)}\n`,
        ),
      ),
    flush: async () => {
      await stateWrites;
      reportFailure();
    },
  };
}

/** A temp file beside `path`, unique to this write. */
function temporaryPathFor(path: string): string {
  return `${path}.${randomUUID().slice(0, 8)}.tmp`;
}

/**
 * Writes a temp file in the same folder, then renames it over the target:
 * readers see the old text or the new, never a part. Not synced to the disk.
 */
function replaceFileSync(path: string, content: string): void {
  const temporary = temporaryPathFor(path);
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes a temp file in the same folder, syncs it, then renames it over the target. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = temporaryPathFor(path);
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Reads run.json of a run folder; a missing or broken file is a CloserError saying so. */
export async function readRunState(runDir: string): Promise<RunState> {
  const file = join(runDir, RUN_FILES.state);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CloserError("not_found", `no run record at ${runDir}`, {
      file,
      expected: "a run folder holding run.json",
      fix: "check the run id and the runs folder (--runs-dir); each run id is a folder there",
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CloserError("record_error", "run.json is not valid JSON", {
      file,
      found: (error as Error).message,
      fix: DAMAGED_FIX,
      cause: error,
    });
  }
  return checkRunState(parsed, file);
}

const DAMAGED_FIX = "the run record is damaged; start a new run instead of resuming this one";

const REQUIRED_FIELDS: readonly [string, "string" | "number" | "object"][] = [
  ["runId", "string"],
  ["agent", "string"],
  ["task", "object"],
  ["args", "object"],
  ["cwd", "string"],
  ["status", "string"],
  ["iteration", "number"],
  ["stepId", "string"],
  ["counters", "object"],
  ["totals", "object"],
  ["startedAt", "string"],
];

function checkRunState(value: unknown, file: string): RunState {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CloserError("record_error", "run.json does not hold an object", {
      file,
      fix: DAMAGED_FIX,
    });
  }
  const record = value as Record<string, unknown>;
  if (record.version !== 1 && record.version !== RUN_STATE_VERSION) {
    throw new CloserError("record_error", "run.json has an unknown format version", {
      file,
      jsonPath: "version",
      expected: `1 or ${RUN_STATE_VERSION}`,
      found: JSON.stringify(record.version),
      fix: DAMAGED_FIX,
    });
  }
  for (const [field, type] of REQUIRED_FIELDS) {
    const found = record[field];
    if (typeof found !== type || found === null) {
      throw new CloserError("record_error", `run.json lacks a valid "${field}"`, {
        file,
        jsonPath: field,
        expected: type,
        found: found === undefined ? "nothing" : JSON.stringify(found),
        fix: DAMAGED_FIX,
      });
    }
  }
  checkDefinitionStamp(record.definition, file);
  return record as unknown as RunState;
}

function checkDefinitionStamp(value: unknown, file: string): void {
  if (value === undefined) return;
  const stamp = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (typeof stamp.hash === "string" && typeof stamp.files === "number") return;
  throw new CloserError("record_error", 'run.json has an invalid "definition"', {
    file,
    jsonPath: "definition",
    expected: "{hash: string, files: number}",
    found: JSON.stringify(value),
    fix: DAMAGED_FIX,
  });
}
