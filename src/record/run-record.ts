import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { cutText } from "../bounded-text.js";
import type { CloserError } from "../errors.js";
import type { RunEvent } from "../ports/events.js";
import type { RecordSink } from "../ports/loop-ports.js";
import type { RunState } from "../ports/run-state.js";
import { openAppendOnly } from "./append-only-file.js";
import { eventLine, MAX_PAYLOAD_BYTES, type Payload, stringifyBounded } from "./bounded-json.js";
import { recordWriteError } from "./record-write-error.js";
import { diffFile, promptFile, RUN_FILES, transcriptFile } from "./run-files.js";
import { makeRedactor } from "./secret-redactor.js";
import { makeStateMarks } from "./state-marks.js";
import { makeStateText } from "./state-text.js";

export { readRunState } from "./read-run-state.js";
export { defaultRunsDir } from "./runs-dir.js";

/** What a stored string field keeps by default: its first and last 128 KiB. */
export const DEFAULT_MAX_FIELD_BYTES = 256 * 1024;

export interface RunRecordOptions {
  /** The environment whose secrets never reach the record. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What each stored string keeps, head and tail (`runner.record.maxFieldBytes`; default 256 KiB). */
  readonly maxFieldBytes?: number;
}

/** A RecordSink that also says when everything it was given is on disk. */
export interface RunRecord extends RecordSink {
  /** Resolves once every write asked for so far has finished; rejects if one failed. */
  flush(): Promise<void>;
}

/**
 * The writer of one run folder: `events.jsonl` (one JSON line per event),
 * `run.json` (rewritten atomically: it is where a resumed run starts), and
 * the prompt and transcript of each query. Secrets of the environment
 * are redacted from everything written.
 *
 * The record is bounded (docs/record.md#bounded-record): every stored string
 * keeps its head and tail up to `maxFieldBytes`; a longer text of an event
 * goes whole, gzipped, to `payloads/`, and a transcript longer than that is
 * kept gzipped instead; no events line exceeds 1 MiB. The task and the
 * baseline are also kept whole, once, in `task.json` and `baseline.json`: a
 * resume takes the task from there, and `--rebuild` both.
 *
 * Everything is written synchronously, so it is in the file system, and
 * survives the process being killed, once the call returns: an event is one
 * `write` to events.jsonl, which stays open from the first event to
 * `run-end`; a prompt or transcript is a small new file. Nothing of it is
 * synced to the disk (docs/record.md#write-path). (Handed to the thread
 * pool, each of those files cost more CPU in the round trips of open, write
 * and close than the write itself.)
 *
 * run.json is a temp file written whole, then renamed over the old one: if
 * the process dies, the file holds either the previous state or the new one,
 * never a part of one. While the run is `running` that is all; the state of
 * an ended run (any other status) is also synced to the disk before it is
 * renamed into place, so the end of a run survives a crash of the machine
 * too. Syncing every iteration would make each one wait on the disk for a
 * state the next iteration replaces. A running state after the first this
 * process wrote (a declaration's checks starting, an iteration ending) is
 * instead one line appended to `run-marks.jsonl`, amending the last run.json
 * this process wrote, until those lines outgrow it and run.json is written
 * whole again; `readRunState` reads the two together (docs/record.md#state-marks).
 *
 * A failed write rejects its own promise with a `record_error` naming the
 * file and the cause, and is reported again by every later `saveState` (which
 * still writes run.json when it can, so the end of the run is on record) and
 * by `flush` (docs/record.md#record-failure).
 */
export function createRunRecord(runDir: string, options: RunRecordOptions): RunRecord {
  const redact = makeRedactor(options.env);
  const maxFieldBytes = options.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  const eventsPath = join(runDir, RUN_FILES.events);
  const statePath = join(runDir, RUN_FILES.state);
  const events = openAppendOnly(eventsPath);
  const stateText = makeStateText(redact, maxFieldBytes);
  const marks = makeStateMarks(join(runDir, RUN_FILES.marks), redact, maxFieldBytes);
  const payloadFiles = new Map<string, string>();
  let foldersMade = false;
  let failure: unknown;
  let stateWrites: Promise<void> = Promise.resolve();
  let keptTask: unknown;
  let keptBaseline: unknown;

  const ensureFolders = () => {
    if (foldersMade) return;
    mkdirSync(join(runDir, RUN_FILES.prompts), { recursive: true });
    mkdirSync(join(runDir, RUN_FILES.transcripts), { recursive: true });
    foldersMade = true;
  };
  const fail = (file: string, error: unknown): CloserError => {
    const described = recordWriteError(file, runDir, error);
    failure ??= described;
    return described;
  };
  const writeNow = (file: string, write: () => void): Promise<void> => {
    try {
      ensureFolders();
      write();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(fail(file, error));
    }
  };
  const spill = (payload: Payload): string => {
    const known = payloadFiles.get(payload.hash);
    if (known !== undefined) return known;
    const name = `${RUN_FILES.payloads}/${String(payloadFiles.size + 1).padStart(4, "0")}-${safeName(payload.field)}.txt.gz`;
    mkdirSync(join(runDir, RUN_FILES.payloads), { recursive: true });
    writeFileSync(join(runDir, name), gzipSync(payload.text));
    payloadFiles.set(payload.hash, name);
    return name;
  };
  /** task.json and baseline.json: written when they first appear (or change), never each iteration. */
  const keepStartFiles = (state: RunState) => {
    if (state.task !== keptTask) {
      const { task, args, worktree } = state;
      const text = JSON.stringify({ task, args, worktree }, redactStrings(redact), 2);
      replaceFileSync(join(runDir, RUN_FILES.task), `${text}\n`);
      keptTask = state.task;
    }
    if (state.baseline !== undefined && state.baseline !== keptBaseline) {
      const text = JSON.stringify(state.baseline, redactStrings(redact), 2);
      replaceFileSync(join(runDir, RUN_FILES.baseline), `${text}\n`);
      keptBaseline = state.baseline;
    }
  };
  const writeState = (state: RunState): Promise<void> => {
    if (state.status !== "running") {
      const text = stateText(state);
      return writeNow(statePath, () => keepStartFiles(state)).then(() =>
        writeFileAtomic(statePath, text).then(
          () => marks.written(state, text),
          (error: unknown) => {
            throw fail(statePath, error);
          },
        ),
      );
    }
    // A running state is one line appended to run-marks.jsonl, not a new run.json, while the
    // run.json there can stand for it (state-marks); else run.json is written whole: a checkpoint.
    if (marks.canMark(state)) {
      return writeNow(join(runDir, RUN_FILES.marks), () => marks.mark(state));
    }
    return writeNow(statePath, () => {
      keepStartFiles(state);
      const text = stateText(state);
      replaceFileSync(statePath, text);
      marks.written(state, text);
    });
  };

  return {
    runDir,
    emit: (event: RunEvent) =>
      writeNow(eventsPath, () => {
        events.append(`${eventLine(eventFields(event), redact, maxFieldBytes, spill)}\n`);
        // The last event of a run: nothing follows it but, rarely, a later run's resume.
        if (event.type === "run-end") {
          events.close();
          marks.close();
        }
      }),
    saveState: async (state: RunState) => {
      // Once an iteration, not once an event: events.jsonl removed or replaced is written anew.
      writeNow(eventsPath, () => {
        events.closeIfReplaced();
        marks.closeIfReplaced();
      }).catch(() => undefined);
      // One write after another: a synced write of an ended run may still be under way.
      // After a failed write run.json is still written where it can be, so the end is on record.
      const written = stateWrites.then(() => writeState(state));
      stateWrites = written.catch(() => undefined);
      await written;
      if (failure !== undefined) throw failure;
    },
    savePrompt: (iteration: number, prompt: string, label?: string) => {
      const file = join(runDir, promptFile(iteration, label));
      return writeNow(file, () => writeFileSync(file, cutText(redact(prompt), maxFieldBytes)));
    },
    saveTranscript: (iteration: number, transcript: readonly unknown[], label?: string) => {
      const file = join(runDir, transcriptFile(iteration, label));
      return writeNow(file, () => {
        const text = `${stringifyBounded(transcript, redact, MAX_PAYLOAD_BYTES, 2)}\n`;
        if (Buffer.byteLength(text) <= maxFieldBytes) writeFileSync(file, text);
        else writeFileSync(`${file}.gz`, gzipSync(text));
      });
    },
    saveDiff: (iteration: number, diff: string) => {
      const file = join(runDir, diffFile(iteration));
      // Not a record failure: the run goes on without this iteration's diff (docs/record.md#diffs).
      try {
        keepDiff(file, redact(diff), maxFieldBytes);
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(recordWriteError(file, runDir, error));
      }
    },
    flush: async () => {
      await stateWrites;
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * A diff as written when it fits the field cap; else gzipped, up to the payload cap, head and
 * tail (docs/record.md#diffs).
 */
function keepDiff(file: string, diff: string, maxFieldBytes: number): void {
  mkdirSync(dirname(file), { recursive: true });
  if (Buffer.byteLength(diff) <= maxFieldBytes) writeFileSync(file, diff);
  else writeFileSync(`${file}.gz`, gzipSync(cutText(diff, MAX_PAYLOAD_BYTES)));
}

function eventFields(event: RunEvent): Readonly<Record<string, unknown>> {
  return event as unknown as Readonly<Record<string, unknown>>;
}

function redactStrings(redact: (text: string) => string) {
  return (_key: string, item: unknown) => (typeof item === "string" ? redact(item) : item);
}

/** A field name fit for a file name: `stdout`, `errorOutput`. */
function safeName(field: string): string {
  return field.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40) || "value";
}

/** A temp file beside `path`, unique to this write: its pid and a random id, no counter to keep. */
function temporaryPathFor(path: string): string {
  return `${path}.${process.pid}-${randomUUID()}.tmp`;
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
