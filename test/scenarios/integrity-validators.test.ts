import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { CloserError } from "../../src/errors.js";
import { exitCodeOfError } from "../../src/run/exit-code.js";
import { runTask } from "../../src/run/index.js";
import {
  makeFixtureRepo,
  makeScriptedBackend,
  makeTestClock,
  writeAgent,
} from "../../src/testing/index.js";
import { BROKEN_PROJECT, DONE, makeEventLog, makeTaskAgent, TASK } from "./support/task-agent.js";

/** A validator module that ends its process instead of judging the work, after noting its pid. */
const EXITING_MODULE = [
  'import { execFileSync } from "node:child_process";',
  'import { writeFileSync } from "node:fs";',
  'import { dirname, join } from "node:path";',
  // Written in the project (the check runs in the clean room, whose git names the project's git
  // dir): the agent folder is read-only to a check in the OS sandbox.
  "export default ({ cwd }) => {",
  '  const common = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd, encoding: "utf8" });',
  '  writeFileSync(join(dirname(common.trim()), "validator.pid"), String(process.pid));',
  "  process.exit(0);",
  "};",
].join("\n");

const REVIEW_PATTERN = { "review-failed": { description: "the review failed", params: [] } };

describe("scenarios: checks the model cannot talk its way past", () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  it("a custom validator that calls process.exit(0) fails its check; closer runs on and returns a result", async () => {
    const agent = makeTaskAgent({
      patterns: REVIEW_PATTERN,
      validators: {
        review: { type: "custom", module: "checks/review.mjs", failurePattern: "review-failed" },
      },
      conditions: ["review"],
      completionStep: { onFailure: { action: "retry", maxAttempts: 2 } },
    });
    const repo = await makeFixtureRepo({
      files: BROKEN_PROJECT,
      agents: [{ ...agent, files: { "checks/review.mjs": EXITING_MODULE } }],
    });
    folders.push(repo.dir);
    const log = makeEventLog();
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { structuredOutput: DONE },
      { structuredOutput: DONE },
    ]);
    const outcome = await runTask({
      agent: await loadAgent("tasker", { cwd: repo.dir }),
      cwd: repo.dir,
      task: TASK,
      backend,
      clock: makeTestClock(),
      onEvent: log.listener,
    });

    expect(outcome.status).toBe("retries_exhausted");
    expect(outcome.success).toBe(false);
    const ends = log.of("validator-end");
    expect(ends.length).toBeGreaterThan(0);
    for (const end of ends) {
      expect(end).toMatchObject({ validator: "review", valid: false, exitCode: 0 });
      expect(end.configError).toBeUndefined();
      expect(String(end.params.reason)).toContain("ended (exit 0) before returning a result");
    }
    // The module ran from the run's definition snapshot, its agentDir.
    const pid = await readFile(join(repo.dir, "validator.pid"), "utf8");
    expect(Number(pid)).not.toBe(process.pid);
    expect(process.exitCode).toBeUndefined();
  });

  it("a folder outside git with an `empty` git status check stops with exit code 2 before any model call", async () => {
    const folder = await realpath(await mkdtemp(join(tmpdir(), "closer-scenario-no-git-")));
    folders.push(folder);
    await writeAgent(folder, makeTaskAgent({ conditions: ["git-clean"] }));
    const backend = makeScriptedBackend([
      { files: { "src/add.js": "broken" }, structuredOutput: DONE },
    ]);

    const refused = await runTask({
      agent: await loadAgent("tasker", { cwd: folder }),
      cwd: folder,
      task: TASK,
      backend,
      clock: makeTestClock(),
    }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(CloserError);
    expect(exitCodeOfError(refused)).toBe(2);
    expect((refused as CloserError).message).toBe(
      `${folder} is not a git repository: validator "git-clean" runs git (\`git status --porcelain\`)`,
    );
    expect(backend.calls).toHaveLength(0);
  });

  it("a check that fails once on an unchanged tree passes as flaky, and its event says so", async () => {
    const counterDir = await realpath(await mkdtemp(join(tmpdir(), "closer-scenario-counter-")));
    folders.push(counterDir);
    const counter = join(counterDir, "runs");
    const agent = makeTaskAgent({
      validators: {
        "flaky-check": {
          type: "command",
          // Passes at the baseline (run 1), fails at the declaration (run 2), passes its re-run.
          command: `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n + 1)) > ${counter}; test "$n" -ne 1`,
          failurePattern: "check-failed",
          reruns: 2,
          // Its verdict depends on a counter, not on the tree alone (docs/completion.md#cached-verdicts).
          cache: false,
        },
      },
      conditions: ["git-clean", "flaky-check"],
      patterns: { "check-failed": { description: "the check failed", params: [] } },
      // The check's counter is outside the tree: named to the OS sandbox (docs/sandbox.md#widening).
      runner: { sandbox: { allowWrite: [counterDir] } },
    });
    const repo = await makeFixtureRepo({ files: BROKEN_PROJECT, agents: [agent] });
    folders.push(repo.dir);
    const log = makeEventLog();
    const outcome = await runTask({
      agent: await loadAgent("tasker", { cwd: repo.dir }),
      cwd: repo.dir,
      task: TASK,
      backend: makeScriptedBackend([{ structuredOutput: DONE }]),
      clock: makeTestClock(),
      onEvent: log.listener,
    });

    expect(outcome.status).toBe("completed");
    const checkEnd = log.of("validator-end").find((end) => end.validator === "flaky-check");
    expect(checkEnd).toMatchObject({ valid: true, flaky: { failures: 1, reruns: 1 } });
    expect(outcome.flaky).toEqual([{ iteration: 1, validator: "flaky-check" }]);
  });
});
