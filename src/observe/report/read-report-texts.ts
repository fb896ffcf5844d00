import { readDiff, readRecordedText } from "../../record/run-folder-reader.js";
import { readIterationSummary } from "../iteration-summary.js";
import type { RunView } from "../run-view.js";
import type { ReportTexts } from "./render-report.js";

/**
 * The prompts the view names, each iteration's summary and diff, as the run folder holds them;
 * a missing one is left out.
 */
export async function readReportTexts(view: RunView): Promise<ReportTexts> {
  const files = view.timeline.flatMap((iteration) =>
    iteration.prompt === undefined ? [] : [iteration.prompt.file],
  );
  const [prompts, summaries, diffs] = await Promise.all([
    Promise.all(
      files.map(async (file) => {
        const text = await readRecordedText(view.runDir, file);
        return text === undefined ? [] : [[file, text] as const];
      }),
    ),
    Promise.all(
      view.timeline.map(async ({ iteration, declaration }) => {
        const said = await readIterationSummary(view.runDir, iteration, declaration?.summary);
        return said === undefined ? [] : [[iteration, said] as const];
      }),
    ),
    Promise.all(
      view.timeline.map(async ({ iteration }) => {
        const diff = await readDiff(view.runDir, iteration);
        return diff === undefined ? [] : [[iteration, diff] as const];
      }),
    ),
  ]);
  return {
    prompts: Object.fromEntries(prompts.flat()),
    summaries: Object.fromEntries(summaries.flat()),
    diffs: Object.fromEntries(diffs.flat()),
  };
}
