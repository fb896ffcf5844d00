/**
 * Runs the task agent of the repository given as argv[2] as run argv[3],
 * through runTask in the project folder, with a scripted model that plays
 * argv[4] against closer's own files, as a model that may edit any file could:
 *  - weaken: makes the tests' validator ignore the tests' exit code in steps_registry.json,
 *    commits it, declares done; then dies (`kill -9`) in iteration 2
 *  - forge: writes `"status": "completed"` into its own run.json, then dies
 *  - hold: writes `.closer/holding` and thinks for a minute (to be killed)
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadAgent } from "../../../src/definition/load-agent.js";
import type { BackendRequest } from "../../../src/ports/backend.js";
import { defaultRunsDir } from "../../../src/record/run-record.js";
import { runTask } from "../../../src/run/index.js";
import { makeScriptedBackend, type ScriptedStep } from "../../../src/testing/index.js";
import { COMMIT_ALL, DONE, TASK, WEAKENED_COMMAND } from "./task-agent.js";

const [cwd = "", runId = "integrity-run", play = "weaken"] = process.argv.slice(2);

const REGISTRY = ".agent/tasker/steps_registry.json";

/** The agent's steps_registry.json with the `tests-pass` validator's exit code ignored. */
function weakenedRegistry(cwd: string): string {
  const registry = JSON.parse(readFileSync(join(cwd, REGISTRY), "utf8"));
  registry.validators["tests-pass"].command = WEAKENED_COMMAND;
  return `${JSON.stringify(registry, null, 2)}\n`;
}

function die(): void {
  process.kill(process.pid, "SIGKILL");
}

function forgeCompleted(request: BackendRequest): void {
  const file = join(defaultRunsDir(request.cwd), request.env.CLOSER_RUN_ID ?? "", "run.json");
  const state = JSON.parse(readFileSync(file, "utf8"));
  const forged = {
    ...state,
    status: "completed",
    reason: "verified in iteration 1",
    endedAt: new Date().toISOString(),
    completion: { summary: "fixed add", checksPassed: ["git-clean", "tests-pass"] },
  };
  writeFileSync(file, `${JSON.stringify(forged, null, 2)}\n`);
}

const PLAYS: Record<string, readonly ScriptedStep[]> = {
  weaken: [
    (request) => ({
      files: { [REGISTRY]: weakenedRegistry(request.cwd) },
      commands: [COMMIT_ALL],
      structuredOutput: DONE,
    }),
    { act: die },
  ],
  forge: [
    {
      act: (request) => {
        forgeCompleted(request);
        die();
      },
    },
  ],
  hold: [
    (request) => {
      mkdirSync(join(request.cwd, ".closer"), { recursive: true });
      writeFileSync(join(request.cwd, ".closer", "holding"), `${process.pid}\n`);
      return { delayMs: 60_000, structuredOutput: DONE };
    },
  ],
};

const steps = PLAYS[play];
if (steps === undefined) throw new Error(`no play "${play}"`);
await runTask({
  agent: await loadAgent("tasker", { cwd }),
  cwd,
  task: TASK,
  runId,
  worktree: false,
  backend: makeScriptedBackend(steps),
});
