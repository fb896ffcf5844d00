import { CloserError } from "../errors.js";
import { pluginWarnings } from "../plugins/plugin-warnings.js";
import { type DefinitionStamp, RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { passedNames } from "../process/child-environment.js";
import { runFilePath } from "../record/run-folder-reader.js";
import { VerdictCache } from "../validators/verdict-cache.js";
import { emit, type RunContext, saveState, waitForState } from "./run-context.js";
import type { DefinitionStart, NewRun, ResumedRun, RunSettings } from "./run-settings.js";
import { recordSetup } from "./setup-outcome.js";
import { findStep } from "./start-iteration.js";
import { rebaseDefinition } from "./take-baseline.js";

/**
 * The run's context from its settings: the ports it was given and the run state (new, or
 * the resumed run's). Throws a CloserError, before anything is recorded or sent, when the
 * run can't start.
 */
export function prepareRun(settings: RunSettings): RunContext {
  const { agent, start, plugins } = settings;
  const state = "resumed" in start ? resumedState(settings, start) : newState(settings, start);
  const run: RunContext = {
    agent,
    ports: settings.ports,
    plugins,
    workTree: settings.workTree,
    runId: settings.runId,
    runDir: settings.runDir,
    signal: settings.signal,
    decisionPath: settings.decisionPath,
    ...(settings.systemPrompt === undefined ? {} : { systemPrompt: settings.systemPrompt }),
    externalConditions: settings.externalConditions,
    ...(settings.beforeChecks === undefined ? {} : { beforeChecks: settings.beforeChecks }),
    startedAtMs: settings.ports.clock.now(),
    state: {
      ...state,
      warnings: [
        ...state.warnings,
        ...pluginWarnings(plugins.listing).filter((line) => !state.warnings.includes(line)),
      ],
      ...(settings.worktree === undefined ? {} : { worktree: settings.worktree }),
      ...(settings.sandbox === undefined ? {} : { sandbox: settings.sandbox }),
    },
    verdicts: new VerdictCache(),
    stateWritten: Promise.resolve(),
  };
  findStep(run, run.state.stepId);
  plugins.reportTo((failure) =>
    emit(run, { type: "plugin-error", ...failure, iteration: run.state.iteration }),
  );
  return run;
}

/**
 * Records the start of the run: run.json first, so even a crash in iteration 1 leaves a
 * record; then `run-start`, and the definition snapshot the run works from.
 */
export async function startRun(run: RunContext, settings: RunSettings): Promise<void> {
  saveState(run);
  await waitForState(run);
  emit(run, {
    type: "run-start",
    agent: run.agent.name,
    task: run.state.task.title,
    cwd: run.workTree,
    maxIterations: run.agent.runner.maxIterations,
    resumed: "resumed" in settings.start,
  });
  emit(run, { type: "environment", ...passedNames(settings.environments) });
  recordSetup(run, settings.setup ?? []);
  if (run.plugins.listing.length > 0) {
    emit(run, { type: "plugins", plugins: run.plugins.listing.map((plugin) => ({ ...plugin })) });
  }
  if (run.state.sandbox !== undefined) emit(run, { type: "sandbox", ...run.state.sandbox });
  const { definition } = settings;
  if (definition?.how === "taken") {
    emit(run, { type: "definition-snapshot", hash: definition.hash, files: definition.files });
  }
  if (definition?.how === "reloaded") {
    const { previousHash = "", hash, files } = definition;
    emit(run, { type: "definition-reloaded", previousHash, hash, files });
  }
  const warnings = [...(settings.warnings ?? []), ...pluginWarnings(run.plugins.listing)];
  for (const message of warnings) emit(run, { type: "warning", message });
  // A resumed run that took its definition anew compares the protected paths with that one.
  if ("resumed" in settings.start && definition !== undefined && definition.how !== "kept") {
    await rebaseDefinition(run);
  }
}

/**
 * A completed run is never run again (docs/integrity.md#resume): its record is
 * no proof of the work, and only the checks of a run in progress can give one.
 */
export function refuseCompletedRun(state: RunState, runDir: string): void {
  if (state.status !== "completed") return;
  const reason = state.reason.split("\n")[0] ?? "";
  throw new CloserError(
    "usage_error",
    `run ${state.runId} already ended: completed (${reason}) — start a new run`,
    {
      file: runFilePath(runDir, "state"),
      jsonPath: "status",
      found: state.status,
      fix: "start a new run; a run that ended completed is not resumed",
    },
  );
}

/** Only a completed run with a verified commit has side effects left to finish (docs/integrity.md#resume). */
function refuseUnfinishable(state: RunState, runDir: string): void {
  if (state.status === "completed" && state.completion?.commit !== undefined) return;
  throw new CloserError(
    "usage_error",
    `run ${state.runId} has no verified commit whose side effects could be finished`,
    {
      file: runFilePath(runDir, "state"),
      jsonPath: "completion.commit",
      found: state.status,
      fix: "only a completed run with a verified commit is finished; start a new run",
    },
  );
}

function newState(settings: RunSettings, start: NewRun): RunState {
  const startedAt = new Date(settings.ports.clock.now()).toISOString();
  const { definition } = settings;
  return {
    version: RUN_STATE_VERSION,
    runId: settings.runId,
    agent: settings.agent.name,
    ...(definition === undefined ? {} : { definition: stampOf(definition) }),
    task: start.task,
    args: start.args,
    cwd: settings.workTree,
    status: "running",
    reason: "",
    iteration: 0,
    stepId: settings.agent.registry.entryStep,
    counters: { failedChecks: 0, formatRetries: 0, undecidableStreak: 0 },
    totals: {
      costUsd: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      backendMs: 0,
    },
    startedAt,
    updatedAt: startedAt,
    sideEffects: [],
    warnings: settings.warnings ?? [],
  };
}

/** A resumed run goes on as `running`, in the current format, with the snapshot it works from. */
function resumedState(settings: RunSettings, start: ResumedRun): RunState {
  const previous = start.resumed;
  if (start.finishOnly === true) refuseUnfinishable(previous, settings.runDir);
  else refuseCompletedRun(previous, settings.runDir);
  const { endedAt: _ended, ...rest } = previous;
  const { definition } = settings;
  return {
    ...rest,
    version: RUN_STATE_VERSION,
    ...(definition === undefined ? {} : { definition: stampOf(definition) }),
    status: "running",
    reason: "",
    updatedAt: new Date(settings.ports.clock.now()).toISOString(),
    warnings: [...previous.warnings, ...(settings.warnings ?? [])],
  };
}

function stampOf(definition: DefinitionStart): DefinitionStamp {
  return { hash: definition.hash, files: definition.files };
}
