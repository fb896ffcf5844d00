import {
  type Backend,
  loadAgent,
  type Plugin,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
  runTask,
} from "../../src/index.js";
import { makeFixtureRepo, makeTestClock } from "../../src/testing/index.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskAgent,
  TASK,
} from "../scenarios/support/task-agent.js";

/** The model fixes add() and commits, then declares done. */
export const FIX_AND_DECLARE = {
  files: { "src/add.js": FIXED_ADD },
  commands: [COMMIT_ALL],
  structuredOutput: DONE,
};

/** The model declares done without touching anything. */
export const DECLARE_ONLY = { structuredOutput: DONE };

export { TASK };

/**
 * A real git repository holding a project whose `node --test` fails until add() adds, and
 * an agent (git-clean, then tests-pass) for it, loaded as a library user loads one.
 */
export async function makePluginRepo() {
  const repo = await makeFixtureRepo({ files: BROKEN_PROJECT, agents: [makeTaskAgent()] });
  const agent = await loadAgent("tasker", { cwd: repo.dir });
  return { repo, agent };
}

/** Runs the task through the library's public entry, with plugins, collecting the events. */
export async function runWithPlugins(
  setup: Awaited<ReturnType<typeof makePluginRepo>>,
  backend: Backend,
  plugins: readonly Plugin[],
) {
  const events: RunEvent[] = [];
  const result = await runTask({
    agent: setup.agent,
    cwd: setup.repo.dir,
    task: TASK,
    backend,
    clock: makeTestClock(),
    onEvent: (event) => events.push(event),
    plugins,
  });
  const of = <T extends RunEventType>(type: T) =>
    events.filter((event): event is RunEventOf<T> => event.type === type);
  return { result, events, of };
}
