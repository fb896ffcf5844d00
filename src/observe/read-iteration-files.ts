import { readPrompt, readTranscript } from "../record/run-folder-reader.js";

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
    const prefix = label === "" ? "" : `${label} `;
    const prompt = await readPrompt(runDir, n, label);
    // A damaged gzipped transcript is shown as none.
    const transcript = await readTranscript(runDir, n, label).catch(() => undefined);
    if (label !== "" && prompt === undefined && transcript === undefined) continue;
    files.push({ label: `${prefix}prompt`, ...prompt });
    files.push({
      label: `${prefix}transcript`,
      ...(transcript === undefined ? {} : { file: transcript.file, text: pretty(transcript.text) }),
    });
  }
  return files;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
