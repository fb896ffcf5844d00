import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeRunReport } from "../../src/observe/report/write-run-report.js";
import { makeTwoIterationRunView, TWO_ITERATION_PROMPTS } from "./support/run-views.js";

describe("docs/report.md#report: writeRunReport", () => {
  let folder = "";
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it("writes report.html in the run folder with the prompts it holds, and says where", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-report-run-"));
    await mkdir(join(folder, "prompts"));
    for (const [file, text] of Object.entries(TWO_ITERATION_PROMPTS)) {
      await writeFile(join(folder, file), text);
    }
    const path = await writeRunReport({ ...makeTwoIterationRunView(), runDir: folder });

    expect(path).toBe(join(folder, "report.html"));
    const page = await readFile(path, "utf8");
    expect(page).toContain("(prompts/iteration-002.md)</summary><pre>## Tests are failing");
    expect(page).not.toContain("is not in the run folder");
  });

  it("writes to the file named instead, and says when a prompt file is missing", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-report-run-"));
    const output = join(folder, "elsewhere.html");
    const path = await writeRunReport({ ...makeTwoIterationRunView(), runDir: folder }, output);

    expect(path).toBe(output);
    expect(await readFile(output, "utf8")).toContain(
      "prompts/iteration-001.md is not in the run folder.",
    );
  });
});
