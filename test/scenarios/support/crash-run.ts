/**
 * Runs the task agent in the repository given as argv[2] until the scripted
 * model kills its own process in iteration 2 (as a crash or `kill -9` would).
 */
import { loadAgent } from "../../../src/definition/load-agent.js";
import { runAgent } from "../../../src/loop/index.js";
import { resolveRunSettings } from "../../../src/run/index.js";
import { makeScriptedBackend } from "../../../src/testing/index.js";
import { DONE, TASK } from "./task-agent.js";

const cwd = process.argv[2] ?? "";
const runId = process.argv[3] ?? "crashed-run";
const agent = await loadAgent("tasker", { cwd });
const settings = await resolveRunSettings({
  agent,
  cwd,
  task: TASK,
  runId,
  backend: makeScriptedBackend([
    { structuredOutput: DONE },
    {
      act: () => {
        process.kill(process.pid, "SIGKILL");
      },
    },
  ]),
});
await runAgent(settings);
