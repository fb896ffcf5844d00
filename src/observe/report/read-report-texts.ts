import { readRecordedText } from "../../record/run-folder-reader.js";
import type { RunView } from "../run-view.js";
import type { ReportTexts } from "./render-report.js";

/** The prompts the view names, as the run folder holds them; a missing one is left out. */
export async function readReportTexts(view: RunView): Promise<ReportTexts> {
  const files = view.timeline.flatMap((iteration) =>
    iteration.prompt === undefined ? [] : [iteration.prompt.file],
  );
  const entries = await Promise.all(
    files.map(async (file) => {
      const text = await readRecordedText(view.runDir, file);
      return text === undefined ? [] : [[file, text] as const];
    }),
  );
  return { prompts: Object.fromEntries(entries.flat()) };
}
