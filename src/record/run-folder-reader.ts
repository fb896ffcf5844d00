/**
 * The one reader of a run folder (docs/record.md): the only code besides the
 * record's writer that knows the names and formats of its files. Each read
 * says what it tolerates; a caller that must refuse a missing or damaged file
 * gets the file system's (or the parser's) error and names the file with
 * `runFilePath`.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { parseJsonLines } from "../json-values.js";
import { diffFile, promptFile, RUN_FILES, transcriptFile } from "./run-files.js";
import { applyLastMark } from "./state-marks.js";

export { diffFile, promptFile, transcriptFile } from "./run-files.js";

const gunzipAsync = promisify(gunzip);

/** A file or folder of a run folder, by what it holds. */
export type RunFile = keyof typeof RUN_FILES;

/** The files of a run folder that hold text. */
type RunTextFile = "state" | "events" | "task" | "baseline" | "marks";

/** A JSON object read from a run folder, its fields not yet trusted. */
export type RecordedObject = Record<string, unknown>;

/** A text of the record and where it was, relative to the run folder. */
export interface RecordedText {
  readonly file: string;
  readonly text: string;
}

/** Where `file` of the run folder at `runDir` is. */
export function runFilePath(runDir: string, file: RunFile): string {
  return join(runDir, RUN_FILES[file]);
}

/** Whether `path` names one of a run's own files, which stand for their folder (run.json, events.jsonl). */
export function isRunFolderFile(path: string): boolean {
  const name = basename(path);
  return name === RUN_FILES.state || name === RUN_FILES.events;
}

/** Whether the run folder holds a run.json. */
export function hasRunState(runDir: string): boolean {
  return existsSync(runFilePath(runDir, "state"));
}

/** Whether the run folder holds a definition snapshot. */
export function hasDefinitionSnapshot(runDir: string): boolean {
  return existsSync(runFilePath(runDir, "definition"));
}

/** The text of one of the run's files; rejects with the file system's error. */
export function readRunFileText(runDir: string, file: RunTextFile): Promise<string> {
  return readFile(runFilePath(runDir, file), "utf8");
}

/**
 * A JSON file of the run (run.json, task.json, baseline.json) parsed; undefined when it is
 * missing or not JSON. run.json is read as its last mark amends it (docs/record.md#state-marks).
 */
export async function readRunJson(
  runDir: string,
  file: "state" | "task" | "baseline",
): Promise<unknown> {
  try {
    const text = await readRunFileText(runDir, file);
    const parsed: unknown = JSON.parse(text);
    if (file !== "state" || typeof parsed !== "object" || parsed === null) return parsed;
    const marks = await readRunFileText(runDir, "marks").catch(() => "");
    return marks === "" ? parsed : applyLastMark(text, parsed, marks);
  } catch {
    return undefined;
  }
}

/**
 * The events on record, in order: none when events.jsonl is missing or unreadable; a line
 * that is not a JSON object (the last one, torn by a crash) is left out.
 */
export async function readEvents(runDir: string): Promise<RecordedObject[]> {
  return parseJsonLines(await readRunFileText(runDir, "events").catch(() => ""));
}

/** The events on record, as `readEvents` reads them; rejects with the file system's error. */
export async function readRequiredEvents(runDir: string): Promise<RecordedObject[]> {
  return parseJsonLines(await readRunFileText(runDir, "events"));
}

/**
 * The hash the run's events.jsonl gives its definition: that of the last
 * `definition-snapshot` or `definition-reloaded` event; undefined when there is none.
 * Only the lines that can hold one are parsed.
 */
export async function readRecordedDefinitionHash(runDir: string): Promise<string | undefined> {
  const text = await readRunFileText(runDir, "events").catch(() => "");
  const lines = text.split("\n").filter((line) => line.includes('"definition-'));
  let hash: string | undefined;
  for (const event of parseJsonLines(lines.join("\n"))) {
    const isDefinition =
      event.type === "definition-snapshot" || event.type === "definition-reloaded";
    if (isDefinition && typeof event.hash === "string") hash = event.hash;
  }
  return hash;
}

/** A text the record names by its place in the run folder (a prompt); undefined when it cannot be read. */
export async function readRecordedText(runDir: string, file: string): Promise<string | undefined> {
  try {
    return await readFile(join(runDir, file), "utf8");
  } catch {
    return undefined;
  }
}

/** The prompt of a query as sent; undefined when the run has none. */
export async function readPrompt(
  runDir: string,
  iteration: number,
  label?: string,
): Promise<RecordedText | undefined> {
  const file = promptFile(iteration, label);
  const text = await readRecordedText(runDir, file);
  return text === undefined ? undefined : { file, text };
}

/**
 * The transcript of a query, as written or gunzipped from `.json.gz`; undefined when the run
 * has neither. Rejects when the gzipped one is damaged.
 */
export async function readTranscript(
  runDir: string,
  iteration: number,
  label?: string,
): Promise<RecordedText | undefined> {
  const file = transcriptFile(iteration, label);
  const text = await readRecordedText(runDir, file);
  if (text !== undefined) return { file, text };
  const gzipped = `${file}.gz`;
  const zipped = await readFile(join(runDir, gzipped)).catch(() => undefined);
  if (zipped === undefined) return undefined;
  return { file: gzipped, text: (await gunzipAsync(zipped)).toString("utf8") };
}

/**
 * What iteration `n` changed in the work tree (docs/record.md#diffs), as written or gunzipped
 * from `.diff.gz`; undefined when the run has none or it cannot be read.
 */
export async function readDiff(
  runDir: string,
  iteration: number,
): Promise<RecordedText | undefined> {
  const file = diffFile(iteration);
  const text = await readRecordedText(runDir, file);
  if (text !== undefined) return { file, text };
  const gzipped = `${file}.gz`;
  const zipped = await readFile(join(runDir, gzipped)).catch(() => undefined);
  if (zipped === undefined) return undefined;
  const unzipped = await gunzipAsync(zipped).catch(() => undefined);
  return unzipped === undefined ? undefined : { file: gzipped, text: unzipped.toString("utf8") };
}

/**
 * The paths of the transcripts kept as written (`iteration-NNN[-label].json`), by iteration:
 * the query's own first, then the labelled extras. None when the folder is missing.
 */
export async function listTranscripts(runDir: string): Promise<Map<number, string[]>> {
  const folder = runFilePath(runDir, "transcripts");
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
    list.push(join(folder, entry.name));
    byIteration.set(entry.iteration, list);
  }
  return byIteration;
}

/** A transcript `listTranscripts` named, parsed; rejects when it cannot be read or is not JSON. */
export async function readListedTranscript(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, "utf8"));
}

/**
 * A text an event kept whole in `payloads/` (docs/record.md#bounded-record), by the name the
 * event gives; undefined when the file cannot be read. Rejects when it is not gzip.
 */
export async function readPayload(runDir: string, file: string): Promise<string | undefined> {
  const zipped = await readFile(join(runDir, file)).catch(() => undefined);
  if (zipped === undefined) return undefined;
  return (await gunzipAsync(zipped)).toString("utf8");
}
