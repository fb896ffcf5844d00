import { join } from "node:path";
import { CloserError, isCloserError } from "../errors.js";
import { refuseCompletedRun } from "../loop/prepare-run.js";
import type { RunState } from "../ports/run-state.js";
import { readRunState } from "../record/read-run-state.js";
import { rebuildRunState } from "../record/rebuild-run-state.js";
import { runFilePath } from "../record/run-folder-reader.js";
import { setAsideDamagedState } from "../record/set-aside-damaged-state.js";
import type { RunBase } from "./run-base.js";

/**
 * run.json of a run to resume, read once: it must be this agent's run, and
 * one that did not complete (docs/integrity.md#resume).
 */
export async function readRunToResume(
  base: RunBase,
  runId: string,
  options: { readonly rebuild?: boolean } = {},
): Promise<RunState> {
  const runDir = join(base.runsDir, runId);
  const state =
    options.rebuild === true
      ? await rebuildRunJson(runDir, base.agent.registry.entryStep)
      : await readRunState(runDir).catch((error: unknown) => {
          throw offerRebuild(error, base.agent.name, runId);
        });
  if (state.agent !== base.agent.name) {
    throw new CloserError("usage_error", `run ${state.runId} belongs to agent "${state.agent}"`, {
      file: runFilePath(runDir, "state"),
      jsonPath: "agent",
      expected: base.agent.name,
      found: state.agent,
      fix: `resume it with: closer run ${state.agent} --resume ${state.runId}`,
    });
  }
  refuseCompletedRun(state, runDir);
  return state;
}

/** A damaged run.json's refusal, with the command that rebuilds it (docs/record.md#rebuild). */
function offerRebuild(error: unknown, agent: string, runId: string): unknown {
  if (!isCloserError(error) || error.code !== "record_error") return error;
  return new CloserError("record_error", error.message, {
    ...error.fields,
    fix: `rebuild it from events.jsonl and resume: closer run ${agent} --resume ${runId} --rebuild (or start a new run)`,
  });
}

/** run.json rebuilt from the run's events; the damaged one is kept beside it as run.json.damaged. */
async function rebuildRunJson(runDir: string, entryStep: string): Promise<RunState> {
  const state = await rebuildRunState(runDir, entryStep);
  await setAsideDamagedState(runDir);
  return state;
}
