import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunForReport, recordMarkupRun } from "../observe/support/report-runs.js";
import { cli } from "./support/cli-repo.js";

describe("docs/cli.md#report: closer report", () => {
  let run: RunForReport | undefined;
  let elsewhere = "";
  afterEach(async () => {
    await run?.cleanup();
    if (elsewhere !== "") await rm(elsewhere, { recursive: true, force: true });
  });

  it("writes report.html in the last run's folder and prints its path", async () => {
    run = await recordMarkupRun();
    const result = await cli("report", "last", "--runs-dir", dirname(run.runDir));

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${join(run.runDir, "report.html")}\n`);
    const page = await readFile(join(run.runDir, "report.html"), "utf8");
    expect(page.match(/data-iteration="/g)).toHaveLength(2);
    expect(page).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(page).not.toContain("<script>window");
  });

  it("writes to -o FILE instead, for a run named by its id", async () => {
    run = await recordMarkupRun();
    elsewhere = await mkdtemp(join(tmpdir(), "closer-report-out-"));
    const output = join(elsewhere, "run.html");
    const runId = run.runDir.split("/").at(-1) ?? "";
    const result = await cli("report", runId, "-o", output, "--runs-dir", dirname(run.runDir));

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${output}\n`);
    expect(existsSync(output)).toBe(true);
    expect(existsSync(join(run.runDir, "report.html"))).toBe(false);
  });

  it("refuses a run that is not there (exit 2) and writes nothing", async () => {
    run = await recordMarkupRun();
    const result = await cli("report", "20990101-000000-nope00", "--runs-dir", dirname(run.runDir));

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("20990101-000000-nope00");
    expect(existsSync(join(run.runDir, "report.html"))).toBe(false);
  });
});
