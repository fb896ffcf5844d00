import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { open, readFile, rename, rm, writeFile } from "node:fs/promises";
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
} as const;

export interface RunRecordOptions {
  /** The environment whose secrets never reach the record; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A RecordSink that also says when everything it was given is on disk. */
export interface RunRecord extends RecordSink {
  /** Resolves once every write asked for so far has finished; rejects if one failed. */
  flush(): Promise<void>;
}

/** `prompts/iteration-007.md`, `iteration-007-closure-review.md` for a labelled extra. */
export function iterationFileName(iteration: number, extension: string, label?: string): string {
  const number = String(iteration).padStart(3, "0");
  return `iteration-${number}${label ? `-${label}` : ""}.${extension}`;
}

/**
 * The writer of one run folder: `events.jsonl` (one JSON line per event),
 * `run.json` (rewritten atomically and synced: it is where a resumed run
 * starts), and the prompt and transcript of each iteration. Secrets of the
 * environment are redacted from everything written.
 *
 * Events are appended synchronously (a few microseconds each), so each is in
 * the file system, and survives the process being killed, once emitted.
 * Prompts and transcripts (a new file each, which costs the file system far
 * more than an append) and run.json are written in the background; run.json
 * writes go one after another. A failed write is reported by the next
 * `saveState` and by `flush`.
 */
export function createRunRecord(runDir: string, options: RunRecordOptions = {}): RunRecord {
  const redact = makeRedactor(options.env ?? process.env);
  let foldersMade = false;
  const eventsPath = join(runDir, RUN_FILES.events);
  let failure: unknown;
  let stateWrites: Promise<void> = Promise.resolve();
  const background = new Set<Promise<void>>();

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
  const writeLater = (path: string, text: string): Promise<void> => {
    const written = writeNow(() => undefined).then(() => writeFile(path, text));
    const settled = written.then(
      () => undefined,
      (error: unknown) => {
        failure ??= error;
      },
    );
    background.add(settled);
    void settled.then(() => background.delete(settled));
    return written;
  };
  const reportFailure = () => {
    if (failure !== undefined) throw failure;
  };

  return {
    runDir,
    emit: (event: RunEvent) =>
      writeNow(() => appendFileSync(eventsPath, `${stringifyRedacted(event, redact)}\n`)),
    saveState: async (state: RunState) => {
      reportFailure();
      const text = `${stringifyRedacted(state, redact, 2)}\n`;
      await writeNow(() => undefined);
      const written = stateWrites.then(() => writeFileAtomic(join(runDir, RUN_FILES.state), text));
      stateWrites = written.catch((error: unknown) => {
        failure ??= error;
      });
      await written;
    },
    savePrompt: (iteration: number, prompt: string, label?: string) =>
      writeLater(
        join(runDir, RUN_FILES.prompts, iterationFileName(iteration, "md", label)),
        redact(prompt),
      ),
    saveTranscript: (iteration: number, transcript: readonly unknown[], label?: string) =>
      writeLater(
        join(runDir, RUN_FILES.transcripts, iterationFileName(iteration, "json", label)),
        `${stringifyRedacted(transcript, redact, 2)}\n`,
      ),
    flush: async () => {
      await stateWrites;
      while (background.size > 0) await Promise.all(background);
      reportFailure();
    },
  };
}

/** Writes a temp file in the same folder, syncs it, then renames it over the target. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = `${path}.${randomUUID().slice(0, 8)}.tmp`;
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
  if (record.version !== RUN_STATE_VERSION) {
    throw new CloserError("record_error", "run.json has an unknown format version", {
      file,
      jsonPath: "version",
      expected: String(RUN_STATE_VERSION),
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
  return record as unknown as RunState;
}
