import { CloserError } from "../../errors.js";
import { resolveRunId } from "../../observe/find-runs.js";
import { locateRunsDir } from "../../observe/locate-runs-dir.js";
import { readIterationFiles } from "../../observe/read-iteration-files.js";
import { readRunView } from "../../observe/read-run-view.js";
import { COLOR, PLAIN, renderRunView } from "../../observe/render-run-view.js";
import { shouldColor } from "../progress.js";

export interface ShowOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly agent?: string;
  readonly iteration?: number;
  readonly json?: boolean;
}

/** `closer show <run-id|last>` (docs/observe.md#show): what one run did. */
export async function runShow(wanted: string, options: ShowOptions): Promise<void> {
  const runsDir = await locateRunsDir(options);
  const { runDir } = await resolveRunId(runsDir, wanted);
  if (options.iteration !== undefined) {
    process.stdout.write(await describeIteration(runDir, options.iteration));
    return;
  }
  const view = await readRunView(runDir);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return;
  }
  const paint = shouldColor(process.stdout, process.env) ? COLOR : PLAIN;
  process.stdout.write(renderRunView(view, paint));
}

async function describeIteration(runDir: string, n: number): Promise<string> {
  const files = await readIterationFiles(runDir, n);
  if (files.every((file) => file.text === undefined)) {
    throw new CloserError("usage_error", `the run has no prompt or transcript of iteration ${n}`, {
      file: runDir,
      fix: "closer show <run> lists its iterations",
    });
  }
  return files
    .map((file) =>
      file.text === undefined
        ? `── ${file.label}: none on record ──\n`
        : `── ${file.label} (${file.file}) ──\n${file.text.trimEnd()}\n`,
    )
    .join("\n");
}
