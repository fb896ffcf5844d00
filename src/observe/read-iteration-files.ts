import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { RUN_FILES } from "../record/run-files.js";

const gunzipAsync = promisify(gunzip);

/** One file of an iteration as `closer show --iteration N` prints it. */
export interface IterationFile {
  /** `prompt`, `transcript`, `closure-review prompt`, `closure-review transcript`. */
  readonly label: string;
  /** Relative to the run folder; absent when the run has none. */
  readonly file?: string;
  readonly text?: string;
}

const LABELS = ["", "completion", "closure-review"] as const;

/**
 * The prompt and transcript of iteration `n` (docs/record.md#prompts-and-transcripts),
 * and those of its closure review; a transcript is pretty-printed, gunzipped when
 * it was kept as `.json.gz`.
 */
export async function readIterationFiles(runDir: string, n: number): Promise<IterationFile[]> {
  const files: IterationFile[] = [];
  for (const label of LABELS) {
    const name = `iteration-${String(n).padStart(3, "0")}${label === "" ? "" : `-${label}`}`;
    const prefix = label === "" ? "" : `${label} `;
    const promptFile = `${RUN_FILES.prompts}/${name}.md`;
    const prompt = await readText(join(runDir, promptFile));
    const transcript = await readTranscript(runDir, name);
    if (label !== "" && prompt === undefined && transcript === undefined) continue;
    files.push({
      label: `${prefix}prompt`,
      ...(prompt === undefined ? {} : { file: promptFile, text: prompt }),
    });
    files.push({ label: `${prefix}transcript`, ...transcript });
  }
  return files;
}

async function readTranscript(
  runDir: string,
  name: string,
): Promise<{ file: string; text: string } | undefined> {
  const plain = `${RUN_FILES.transcripts}/${name}.json`;
  const text = await readText(join(runDir, plain));
  if (text !== undefined) return { file: plain, text: pretty(text) };
  const gzipped = `${plain}.gz`;
  try {
    const whole = await gunzipAsync(await readFile(join(runDir, gzipped)));
    return { file: gzipped, text: pretty(whole.toString("utf8")) };
  } catch {
    return undefined;
  }
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}
