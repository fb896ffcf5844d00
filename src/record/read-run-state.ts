import { CloserError } from "../errors.js";
import { RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { readRunFileText, readRunJson, runFilePath } from "./run-folder-reader.js";
import { applyLastMark } from "./state-marks.js";

/**
 * Reads run.json of a run folder, as amended by its last mark
 * (docs/record.md#state-marks); a missing or broken file is a CloserError saying so.
 */
export async function readRunState(runDir: string): Promise<RunState> {
  const file = runFilePath(runDir, "state");
  let text: string;
  try {
    text = await readRunFileText(runDir, "state");
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
  const marks = await readMarks(runDir);
  const state = checkRunState(amend(text, parsed, marks), file);
  return { ...state, ...(await readWholeTask(runDir)) };
}

async function readMarks(runDir: string): Promise<string> {
  try {
    return await readRunFileText(runDir, "marks");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw new CloserError("record_error", "run-marks.jsonl cannot be read", {
      file: runFilePath(runDir, "marks"),
      found: (error as Error).message,
      fix: "make the file readable, or remove it to resume from run.json alone",
      cause: error,
    });
  }
}

function amend(text: string, parsed: unknown, marks: string): unknown {
  if (marks === "" || typeof parsed !== "object" || parsed === null) return parsed;
  return applyLastMark(text, parsed, marks);
}

/**
 * The task and arguments as task.json keeps them, whole: run.json's copy is
 * cut like any stored text (docs/record.md#start-files).
 */
async function readWholeTask(runDir: string): Promise<Partial<RunState>> {
  const kept = (await readRunJson(runDir, "task")) as Partial<RunState> | null | undefined;
  if (typeof kept?.task !== "object" || kept.task === null) return {};
  return { task: kept.task, ...(typeof kept.args === "object" ? { args: kept.args } : {}) };
}

const DAMAGED_FIX =
  "rebuild run.json from events.jsonl and resume with --resume <run id> --rebuild, or start a new run";

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
