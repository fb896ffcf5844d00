/**
 * Runs the task agent in the repository given as argv[2] (as run argv[3]) until the run is
 * killed (as a crash or `kill -9` would), in iteration 2: by the scripted model itself during
 * its query (argv[4] `query`, the default), or, with `checks`, by a check of the declaration it
 * makes then (the model fixes `add` and leaves `.closer/kill-now`, which the agent's `killer`
 * check reads).
 */
import { loadAgent } from "../../../src/definition/load-agent.js";
import { runAgent } from "../../../src/loop/index.js";
import { resolveRunSettings } from "../../../src/run/index.js";
import { makeScriptedBackend, type ScriptedStep } from "../../../src/testing/index.js";
import { DONE, FIXED_ADD, TASK } from "./task-agent.js";

const cwd = process.argv[2] ?? "";
const runId = process.argv[3] ?? "crashed-run";
const during = process.argv[4] ?? "query";

const second: ScriptedStep =
  during === "checks"
    ? { files: { "src/add.js": FIXED_ADD, ".closer/kill-now": "1\n" }, structuredOutput: DONE }
    : {
        act: () => {
          process.kill(process.pid, "SIGKILL");
        },
      };
const agent = await loadAgent("tasker", { cwd });
const settings = await resolveRunSettings({
  agent,
  cwd,
  task: TASK,
  runId,
  backend: makeScriptedBackend([{ structuredOutput: DONE }, second]),
});
await runAgent(settings);
