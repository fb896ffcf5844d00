/** File names inside a run folder. */
export const RUN_FILES = {
  state: "run.json",
  events: "events.jsonl",
  prompts: "prompts",
  transcripts: "transcripts",
  definition: "definition",
  /** The run's task and arguments, whole, written once (docs/record.md#start-files). */
  task: "task.json",
  /** The run's baseline, whole, written once it is taken. */
  baseline: "baseline.json",
  /** Texts too long for their event, gzipped (docs/record.md#bounded-record). */
  payloads: "payloads",
  /** What amends run.json between its writes: the checks under way (docs/record.md#state-marks). */
  marks: "run-marks.jsonl",
  /** What each iteration changed in the work tree (docs/record.md#diffs). */
  diffs: "diffs",
} as const;

/** `iteration-007`, `iteration-007-closure-review` for a labelled extra. */
function iterationName(iteration: number, label?: string): string {
  return `iteration-${String(iteration).padStart(3, "0")}${label ? `-${label}` : ""}`;
}

/** The prompt of a query, relative to the run folder: `prompts/iteration-007.md`. */
export function promptFile(iteration: number, label?: string): string {
  return `${RUN_FILES.prompts}/${iterationName(iteration, label)}.md`;
}

/** The transcript of a query, relative to the run folder (`.gz` added when it was kept gzipped). */
export function transcriptFile(iteration: number, label?: string): string {
  return `${RUN_FILES.transcripts}/${iterationName(iteration, label)}.json`;
}

/** What an iteration changed, relative to the run folder (`.gz` added when it was kept gzipped). */
export function diffFile(iteration: number): string {
  return `${RUN_FILES.diffs}/${iterationName(iteration)}.diff`;
}
