import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunView } from "../run-view.js";
import type { ReportTexts } from "./render-report.js";

/** The prompts the view names, as the run folder holds them; a missing one is left out. */
export async function readReportTexts(view: RunView): Promise<ReportTexts> {
  const files = view.timeline.flatMap((iteration) =>
    iteration.prompt === undefined ? [] : [iteration.prompt.file],
  );
  const entries = await Promise.all(
    files.map(async (file) => {
      try {
        return [[file, await readFile(join(view.runDir, file), "utf8")] as const];
      } catch {
        return [];
      }
    }),
  );
  return { prompts: Object.fromEntries(entries.flat()) };
}
