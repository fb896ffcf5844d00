import { rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { RunView } from "../run-view.js";
import { readReportTexts } from "./read-report-texts.js";
import { renderReport } from "./render-report.js";

/** The report's file when none is named: beside the record it shows. */
export const REPORT_FILE_NAME = "report.html";

/**
 * Writes the run's report (docs/report.md#report) to `outputFile`, default
 * `report.html` in the run folder, whole or not at all; returns its path.
 */
export async function writeRunReport(view: RunView, outputFile?: string): Promise<string> {
  const file = resolve(outputFile ?? join(view.runDir, REPORT_FILE_NAME));
  const page = renderReport(view, await readReportTexts(view));
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, page);
  await rename(temporary, file);
  return file;
}
