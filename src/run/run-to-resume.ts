import { join } from "node:path";
import { CloserError, isCloserError } from "../errors.js";
import { EFFECT_KEYS } from "../github/side-effects.js";
import { refuseCompletedRun } from "../loop/prepare-run.js";
import type { RunState } from "../ports/run-state.js";
import { readRunState } from "../record/read-run-state.js";
import { rebuildRunState } from "../record/rebuild-run-state.js";
import { readEvents, runFilePath } from "../record/run-folder-reader.js";
import { setAsideDamagedState } from "../record/set-aside-damaged-state.js";
import { WORKTREE_FINISHED } from "./after-loop.js";
import { refuseEndedRun } from "./ended-run.js";
import type { RunBase } from "./run-base.js";

/**
 * run.json of a run to resume, read once: it must be this agent's run, and one that was
 * interrupted rather than ended — or, with `finish`, one that completed with side effects left
 * to finish (docs/integrity.md#resume, docs/record.md#resume).
 */
export async function readRunToResume(
  base: RunBase,
  runId: string,
  options: { readonly rebuild?: boolean; readonly finish?: boolean } = {},
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
  const finishing = options.finish === true && (await leftUnfinished(base, state, runDir));
  if (!finishing) refuseCompletedRun(state, runDir);
  refuseEndedRun(state, runDir, base.agent.runner.maxIterations);
  return state;
}

/**
 * Whether a completed run with a verified commit left a side effect undone: one that failed
 * and was not done since, or one its configuration calls for that run.json does not list.
 */
async function leftUnfinished(base: RunBase, state: RunState, runDir: string): Promise<boolean> {
  if (state.status !== "completed" || state.completion?.commit === undefined) return false;
  const done = new Set(state.sideEffects);
  const failed = (await readEvents(runDir))
    .filter((event) => event.type === "side-effect" && event.ok === false)
    .map((event) => String(event.action))
    .filter((action) => action !== "worktree-keep")
    .map((action) => (action.startsWith("worktree-") ? WORKTREE_FINISHED : action));
  return [...failed, ...requiredEffects(base, state)].some((key) => !done.has(key));
}

/** The keys of the side effects a completed run calls for, as after-loop.ts records them. */
function requiredEffects(base: RunBase, state: RunState): string[] {
  const { github, worktree } = base.agent.runner;
  const merged = state.worktree !== undefined && worktree.onSuccess !== "keep";
  const keys = merged ? [WORKTREE_FINISHED] : [];
  if (state.task.kind !== "issue") return keys;
  if (github.closeAction !== "close") {
    keys.push(...github.labels.remove.map(EFFECT_KEYS.labelRemove));
    keys.push(...github.labels.add.map(EFFECT_KEYS.labelAdd));
  }
  if (github.completionComment) keys.push(EFFECT_KEYS.completionComment);
  if (github.closeAction !== "label-only") keys.push(EFFECT_KEYS.close);
  return keys;
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
