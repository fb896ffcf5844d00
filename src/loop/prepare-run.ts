import { join } from "node:path";
import { SchemaValidators } from "../completion/schema-validators.js";
import { normalizeDefinitionText } from "../definition/definition-text.js";
import { SchemaResolver } from "../definition/schema-resolver.js";
import { CloserError } from "../errors.js";
import { makeIntegrityProbe } from "../integrity/integrity-probe.js";
import { makePluginHost } from "../plugins/plugin-host.js";
import { withPluginPorts } from "../plugins/plugin-ports.js";
import { pluginWarnings } from "../plugins/plugin-warnings.js";
import type { ResolvedAgent } from "../ports/agent.js";
import { BUILTIN_PATTERN_NAMES } from "../ports/check-failure.js";
import type { LoopPorts, SandboxPort } from "../ports/loop-ports.js";
import type { PluginHost } from "../ports/plugin-host.js";
import {
  type DefinitionStamp,
  RUN_STATE_VERSION,
  type RunState,
  type SandboxRecord,
} from "../ports/run-state.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { passedNames } from "../process/child-environment.js";
import { makePromptRenderer } from "../prompts/make-prompt-renderer.js";
import { readOptionalFile, readUntrustedFile } from "../record/read-optional-file.js";
import { buildRetryPrompt } from "../retry/retry-prompt.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";
import { runValidator, unknownValidatorOutcome } from "../validators/run-validator.js";
import { VerdictCache } from "../validators/verdict-cache.js";
import { emit, type RunContext, saveState, waitForState } from "./run-context.js";
import type { DefinitionStart, NewRun, RunSettings } from "./run-settings.js";
import { findStep } from "./start-iteration.js";
import { rebaseDefinition } from "./take-baseline.js";

/**
 * Builds everything a run works with from its settings: the ports and the
 * run state (new, or the resumed run's). Throws a CloserError, before
 * anything is recorded or sent, when the run can't start.
 */
export async function prepareRun(settings: RunSettings): Promise<RunContext> {
  const { agent, start } = settings;
  const plugins = makePluginHost(settings.plugins ?? []);
  const state =
    "resumed" in start ? resumedState(settings, start.resumed) : newState(settings, start);
  const run: RunContext = {
    agent,
    ports: makePorts(settings, plugins),
    plugins,
    cwd: settings.cwd,
    runId: settings.runId,
    runDir: settings.runDir,
    signal: settings.signal,
    decisionPath: settings.decisionPath,
    ...(await readSystemPrompt(agent)),
    externalConditions: settings.externalConditions,
    ...(settings.beforeChecks === undefined ? {} : { beforeChecks: settings.beforeChecks }),
    startedAtMs: settings.clock.now(),
    state: {
      ...state,
      warnings: [
        ...state.warnings,
        ...pluginWarnings(plugins.listing).filter((line) => !state.warnings.includes(line)),
      ],
      ...(settings.worktree === undefined ? {} : { worktree: settings.worktree }),
      ...(settings.sandbox === undefined ? {} : { sandbox: sandboxRecord(settings.sandbox) }),
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
    cwd: run.cwd,
    maxIterations: run.agent.runner.maxIterations,
    resumed: "resumed" in settings.start,
  });
  emit(run, { type: "environment", ...passedNames(settings.environments) });
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

/** The sandbox as run.json keeps it: on with its policy, or off and why. */
function sandboxRecord(state: SandboxState): SandboxRecord {
  if (!state.on) return { on: false, reason: state.reason };
  return { on: true, policy: { ...state.sandbox.policy }, refusals: 0 };
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
      file: join(runDir, "run.json"),
      jsonPath: "status",
      found: state.status,
      fix: "start a new run; a run that ended completed is not resumed",
    },
  );
}

function makePorts(settings: RunSettings, plugins: PluginHost): LoopPorts {
  const { agent } = settings;
  const leaving = oneAtATime();
  const sandbox = settings.sandbox?.on === true ? settings.sandbox.sandbox : undefined;
  const schemas = new SchemaResolver(join(agent.dir, "schemas"));
  const ports: LoopPorts = {
    backend: settings.backend,
    ...(settings.reviewBackend === undefined ? {} : { reviewBackend: settings.reviewBackend }),
    record: settings.record,
    clock: settings.clock,
    ...(settings.onEvent === undefined ? {} : { listener: settings.onEvent }),
    resolveSchema: memoize(
      (ref) => `${ref.file}#${ref.schema}`,
      (ref) => schemas.resolve(ref),
    ),
    renderPrompt: makePromptRenderer(),
    buildRetryPrompt,
    readFile: readUntrustedFile,
    runValidator: async (name, context) => {
      const definition = agent.registry.validators[name];
      if (definition === undefined) return unknownValidatorOutcome(name);
      const entry = await sandbox?.enter("validators");
      const outcome = await runValidator(definition, {
        ...context,
        processEnv: settings.environments.validators,
        ...(entry === undefined ? {} : { sandbox: entry.wrapper }),
      }).catch(async (error: unknown) => {
        await leaving(async () => entry?.leave());
        throw error;
      });
      // Checks run at once (docs/completion.md#concurrency): each leaves the sandbox and takes
      // what it was refused in a turn of its own, so a refusal is told to the check it was made to.
      return leaving(async () => {
        await entry?.leave();
        return withSandboxRefusals(outcome, sandbox);
      });
    },
    schemaValidators: new SchemaValidators(),
    integrity: makeIntegrityProbe(settings.protectedSet),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...settings.ports,
  };
  return withPluginPorts(ports, plugins);
}

/** Runs the work it is given one after another, in the order given. */
function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = last.then(work);
    last = result.catch(() => undefined);
    return result;
  };
}

/**
 * A check whose processes the OS sandbox refused a write or a connection has failed, whatever
 * it printed (docs/sandbox.md#refusals): a test that phones home does not pass. Its pattern is
 * `sandbox-refused`, whose retry text names each refusal.
 */
async function withSandboxRefusals(
  outcome: ValidatorOutcome,
  sandbox: SandboxPort | undefined,
): Promise<ValidatorOutcome> {
  const refusals = (await sandbox?.takeRefusals("validators")) ?? [];
  if (refusals.length === 0 || outcome.aborted) return outcome;
  const named = refusals.map((line) => `[closer] the OS sandbox refused: ${line}`).join("\n");
  return {
    ...outcome,
    valid: false,
    pattern: BUILTIN_PATTERN_NAMES.sandboxRefused,
    params: { ...outcome.params, refusals },
    stderr:
      outcome.stderr === undefined || outcome.stderr === "" ? named : `${outcome.stderr}\n${named}`,
    sandboxRefusals: refusals,
  };
}

function newState(settings: RunSettings, start: NewRun): RunState {
  const startedAt = new Date(settings.clock.now()).toISOString();
  const { definition } = settings;
  return {
    version: RUN_STATE_VERSION,
    runId: settings.runId,
    agent: settings.agent.name,
    ...(definition === undefined ? {} : { definition: stampOf(definition) }),
    task: start.task,
    args: start.args,
    cwd: settings.cwd,
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
function resumedState(settings: RunSettings, previous: RunState): RunState {
  refuseCompletedRun(previous, settings.runDir);
  const { endedAt: _ended, ...rest } = previous;
  const { definition } = settings;
  return {
    ...rest,
    version: RUN_STATE_VERSION,
    ...(definition === undefined ? {} : { definition: stampOf(definition) }),
    status: "running",
    reason: "",
    updatedAt: new Date(settings.clock.now()).toISOString(),
    warnings: [...previous.warnings, ...(settings.warnings ?? [])],
  };
}

function stampOf(definition: DefinitionStart): DefinitionStamp {
  return { hash: definition.hash, files: definition.files };
}

async function readSystemPrompt(agent: ResolvedAgent): Promise<{ systemPrompt?: string }> {
  const file = await readOptionalFile(agent.runner.systemPromptPath);
  const text = file === undefined ? "" : normalizeDefinitionText(file.text);
  return text.trim() === "" ? {} : { systemPrompt: text };
}

/** Caches a function's promise by key: a run resolves each step's schema once. */
function memoize<Input, Output>(
  keyOf: (input: Input) => string,
  make: (input: Input) => Promise<Output>,
): (input: Input) => Promise<Output> {
  const made = new Map<string, Promise<Output>>();
  return (input) => {
    const key = keyOf(input);
    let result = made.get(key);
    if (result === undefined) {
      result = make(input);
      made.set(key, result);
    }
    return result;
  };
}
