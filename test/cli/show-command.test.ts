import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readRunView } from "../../src/observe/read-run-view.js";
import { COLOR, renderRunView } from "../../src/observe/render-run-view.js";
import { makeScriptedBackend, scriptedError } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskRepo,
  runTask,
} from "../scenarios/support/task-agent.js";
import { cli } from "./support/cli-repo.js";

const CORPUS = join(import.meta.dirname, "../fixtures/recorded-runs");
const ESCAPE = "\u001b[";

let runsDir: string;
beforeEach(async () => {
  runsDir = await mkdtemp(join(tmpdir(), "closer-show-"));
});
afterEach(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

async function show(...args: string[]) {
  return cli("show", "--runs-dir", CORPUS, ...args);
}

describe("closer show (docs/observe.md#show)", () => {
  it("tells a run after a test-failed retry and a rate limit, iteration by iteration", async () => {
    const { code, stdout, stderr } = await show("completed-after-retries");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).not.toContain(ESCAPE);
    const [head, ...blocks] = stdout.split(/\n(?=Iteration \d|End )/);
    expect(head).toContain(
      "Run 20300101-000000-comple · tasker · completed — verified in iteration 3",
    );
    expect(head).toContain("make add() add");
    expect(head).toMatch(/Baseline .*18 protected file\(s\)/);
    expect(head).toMatch(/✗ tests-pass/);
    const [first, second, third, end] = blocks;
    expect(first).toContain("prompt    step · prompts/steps/initial/task/f_default.md");
    expect(first).toContain("query     initial");
    expect(first).toContain("declared  undecidable via none");
    expect(first).toContain("retry     undecidable → builtin:retry (attempt 1/3)");
    expect(second).toContain("query     retry:undecidable");
    expect(second).toContain("declared  complete via structured");
    expect(second).toMatch(/✗ validator tests-pass \(test-failed, .*exit 1\)/);
    expect(second).toContain("| ");
    expect(second).toContain("adds two numbers");
    expect(second).toContain(
      "retry     test-failed → prompts/steps/retry/task/f_failed_test-failed.md (attempt 1/3)",
    );
    expect(third).toMatch(/query {5}retry:test-failed · .* · error rate_limit/);
    expect(third).toContain("query     repeat:rate_limit");
    expect(third).toMatch(/✓ validator tests-pass/);
    expect(end).toContain("End completed — verified in iteration 3");
    expect(end).toContain("Cost by reason");
    expect(end).toMatch(/repeat:rate_limit\s+1 query\s+\$0\.0200/);
    expect(end).toMatch(/total\s+4 queries\s+\$0\.0400/);
  });

  it("labels the attempts of a resumed run and shows the closure review's findings", async () => {
    const resumed = await show("resumed");
    expect(resumed.stdout).toContain("2 attempt(s)");
    expect(resumed.stdout).toContain("Iteration 3 · continuation.task · attempt 2");
    const reviewed = await show("closure");
    expect(reviewed.stdout).toMatch(/✗ closure-review closure-review/);
    expect(reviewed.stdout).toContain("| restore test/add.test.js");
    expect(reviewed.stdout).toContain("retry     review-rejected");
  });

  it.each([
    ["max-iterations", "End max_iterations"],
    ["retries-exhausted", "End retries_exhausted"],
    ["budget-exhausted", "End budget_exhausted"],
    ["aborted", "End aborted"],
    ["error-undecidable", "End error"],
    ["blocked", "End blocked"],
    ["fake-claude", "End completed"],
    ["format-retry", "End completed"],
  ])("shows the %s run to its end", async (name, end) => {
    const { code, stdout } = await show(name);
    expect(code).toBe(0);
    expect(stdout).toContain(end);
    expect(stdout).toContain("Iteration 2");
  });

  it("--json prints the run view as one document", async () => {
    const { stdout } = await show("completed-after-retries", "--json");
    const view = JSON.parse(stdout);
    expect(view).toEqual(
      JSON.parse(JSON.stringify(await readRunView(join(CORPUS, "completed-after-retries")))),
    );
    expect(view.costByReason.map((total: { reason: string }) => total.reason)).toEqual([
      "initial",
      "retry:undecidable",
      "retry:test-failed",
      "repeat:rate_limit",
    ]);
  });

  it("--iteration N prints the prompt and the transcript, the closure review's labelled", async () => {
    const { stdout } = await show("closure-review", "--iteration", "1");
    expect(stdout).toContain("── prompt (prompts/iteration-001.md) ──\n# Task: make add() add");
    expect(stdout).toContain("── transcript (transcripts/iteration-001.json) ──\n[\n  {");
    expect(stdout).toContain(
      "── closure-review prompt (prompts/iteration-001-closure-review.md) ──",
    );
    expect(stdout).toContain(
      "── closure-review transcript (transcripts/iteration-001-closure-review.json) ──",
    );
    const missing = await show("closure-review", "--iteration", "9");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no prompt or transcript of iteration 9");
  });

  it("--iteration N reads a gzipped transcript", async () => {
    const dir = join(runsDir, "20300101-000000-gzippd");
    await cp(join(CORPUS, "max-iterations"), dir, { recursive: true });
    const plain = join(dir, "transcripts/iteration-002.json");
    await writeFile(`${plain}.gz`, gzipSync(await readFile(plain)));
    await rm(plain);
    const { stdout } = await cli("show", "--runs-dir", runsDir, "last", "--iteration", "2");
    expect(stdout).toContain("── transcript (transcripts/iteration-002.json.gz) ──\n[\n  {");
  });

  it("refuses an unknown run, naming the runs folder and closer runs", async () => {
    const { code, stderr } = await show("20990101");
    expect(code).toBe(2);
    expect(stderr).toContain(`no run "20990101" in ${CORPUS}`);
    expect(stderr).toContain("closer runs");
  });

  it("colours only when asked to", async () => {
    const view = await readRunView(join(CORPUS, "retries-exhausted"));
    expect(renderRunView(view)).not.toContain(ESCAPE);
    expect(renderRunView(view, COLOR)).toContain(`${ESCAPE}31m✗`);
  });
});

describe("closer show and closer runs on a run just made", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("find the run in the agent's runner.logging.runsDir and show its receipts", async () => {
    // runsDir (a fresh folder outside the repository) is the agent's own runs folder here.
    const setup = await makeTaskRepo({ runner: { logging: { runsDir } } });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE, costUsd: 0.2 },
      { error: scriptedError("overloaded"), costUsd: 0 },
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
        costUsd: 0.15,
      },
    ]);
    const { result } = await runTask(setup, backend);
    expect(result.runDir.startsWith(runsDir)).toBe(true);

    const listed = await cli("runs", "--cwd", setup.repo.dir, "--agent", "tasker", "--json");
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { runId: result.runId, agent: "tasker", status: "completed", iterations: 2 },
    ]);
    const shown = await cli("show", "--cwd", setup.repo.dir, "--agent", "tasker", "last");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Run ${result.runId}`);
    expect(shown.stdout).toContain("query     retry:test-failed");
    expect(shown.stdout).toContain("query     repeat:overloaded");
    expect(shown.stdout).toMatch(/failedTests: adds two numbers/);
    const view = await readRunView(result.runDir);
    expect(
      Object.fromEntries(view.costByReason.map((total) => [total.reason, total.costUsd])),
    ).toEqual(
      Object.fromEntries(
        Object.entries(result.costByReason ?? {}).map(([reason, total]) => [reason, total.costUsd]),
      ),
    );
  });
});
