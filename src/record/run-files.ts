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
} as const;
