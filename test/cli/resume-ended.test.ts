import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DONE_ANSWER,
  type FaultRepo,
  makeFaultRepo,
  READ_PROMPT,
} from "../faults/support/fault-repo.js";
import { cli } from "./support/cli-repo.js";

/** The model: notes each query in scratch/queries (ignored by git), then declares done without fixing BROKEN. */
const COUNTING_MODEL = [
  READ_PROMPT,
  'import { appendFileSync } from "node:fs";',
  'appendFileSync(new URL("scratch/queries", import.meta.url), "query\\n");',
  DONE_ANSWER,
  "",
].join("\n");

let repo: FaultRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function queries(dir: string): Promise<number> {
  const text = await readFile(join(dir, "scratch/queries"), "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "").length;
}

/** Runs the task to its end; returns the run's id and folder. */
async function endedRun(dir: string, agent: string) {
  const result = await cli(
    "run",
    agent,
    "--task",
    "fix it",
    "--cwd",
    dir,
    "--json",
    "--sandbox",
    "off",
  );
  expect(result.code, result.stderr).toBe(1);
  const line = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
    runId: string;
    runDir: string;
    status: string;
  };
  return line;
}

describe("docs/record.md#resume a run that ended is not resumed", () => {
  it("a run that ended retries_exhausted: --resume is refused (exit 2) naming the run, its end and what to do; nothing is sent", async () => {
    repo = await makeFaultRepo({ files: { BROKEN: "broken\n" }, program: COUNTING_MODEL });
    const run = await endedRun(repo.dir, repo.agent);
    expect(run.status).toBe("retries_exhausted");
    expect(await queries(repo.dir)).toBe(2);
    const recorded = await readFile(join(run.runDir, "run.json"), "utf8");

    for (const more of [[], ["--max-iterations", "9"]]) {
      const refused = await cli(
        "run",
        repo.agent,
        "--resume",
        run.runId,
        "--cwd",
        repo.dir,
        ...more,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`run ${run.runId} already ended: retries_exhausted (`);
      expect(refused.stderr).toContain("a run that ended is not resumed");
      expect(refused.stderr).toContain("start a new run: closer run faulty --task");
      expect(refused.stderr).toContain(`closer report ${run.runId}`);
    }
    expect(await queries(repo.dir)).toBe(2);
    expect(await readFile(join(run.runDir, "run.json"), "utf8")).toBe(recorded);
  }, 60_000);

  it("a run out of iterations: refused at the same cap, naming the --max-iterations that goes on; resumed above it", async () => {
    repo = await makeFaultRepo({
      files: { BROKEN: "broken\n" },
      program: COUNTING_MODEL,
      runner: { maxIterations: 1 },
    });
    const run = await endedRun(repo.dir, repo.agent);
    expect(run.status).toBe("max_iterations");

    const refused = await cli("run", repo.agent, "--resume", run.runId, "--cwd", repo.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`run ${run.runId} already ended: max_iterations (`);
    expect(refused.stderr).toContain(`closer run faulty --resume ${run.runId} --max-iterations 2`);
    expect(await queries(repo.dir)).toBe(1);

    const raised = await cli(
      ...["run", repo.agent, "--resume", run.runId, "--max-iterations", "2"],
      ...["--cwd", repo.dir, "--json", "--sandbox", "off"],
    );
    expect(raised.code, raised.stderr).toBe(1);
    expect(await queries(repo.dir)).toBe(2);
  }, 60_000);
});
