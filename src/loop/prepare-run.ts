import { join, resolve } from "node:path";
import { resolveDecisionPath } from "../completion/decide-completion.js";
import { SchemaValidators } from "../completion/schema-validators.js";
import { SchemaResolver } from "../definition/schema-resolver.js";
import type { ResolvedAgent } from "../definition/types.js";
import { CloserError } from "../errors.js";
import type { Clock, ValidatorOutcome } from "../ports.js";
import { makePromptRenderer } from "../prompts/make-prompt-renderer.js";
import { readOptionalFile } from "../record/read-optional-file.js";
import { createRunRecord, defaultRunsDir, readRunState } from "../record/run-record.js";
import { RUN_STATE_VERSION, type RunState } from "../record/run-state.js";
import { runValidator } from "../validators/run-validator.js";
import { emit, type RunContext, type RunPorts, saveState, waitForState } from "./run-context.js";
import type { RunOptions } from "./run-options.js";
import { findStep } from "./start-iteration.js";
import { makeSystemClock } from "./system-clock.js";

/**
 * Builds everything a run works with: the record, the backend and the other
 * ports, and the run state (new, or read back from run.json to resume).
 * Throws a CloserError, before anything is recorded or sent, when the run
 * can't start.
 */
export async function prepareRun(options: RunOptions): Promise<RunContext> {
  const { agent } = options;
  const clock = options.clock ?? makeSystemClock();
  const cwd = resolve(options.cwd);
  const runsDir = resolve(
    cwd,
    options.runsDir ?? agent.runner.logging.runsDir ?? defaultRunsDir(cwd),
  );
  const decisionPath = resolveDecisionPath(cwd, agent.runner.decisionFile, {
    file: agent.files.agentJson,
    jsonPath: "runner.decisionFile",
  });
  const state = options.resume
    ? await resumeState(join(runsDir, options.resume), agent, clock)
    : newState(options, cwd, clock);
  const runDir = join(runsDir, state.runId);
  const run: RunContext = {
    agent,
    ports: makePorts(options, agent, runDir, clock),
    cwd,
    runId: state.runId,
    runDir,
    maxIterations: options.maxIterations ?? agent.runner.maxIterations,
    signal: options.signal ?? new AbortController().signal,
    decisionPath,
    ...(await readSystemPrompt(agent)),
    externalConditions: options.externalConditions ?? [],
    startedAtMs: clock.now(),
    state: options.worktree ? { ...state, worktree: options.worktree } : state,
    stateWritten: Promise.resolve(),
  };
  findStep(run, run.state.stepId);
  return run;
}

/** Records the start of the run: run.json first, so even a crash in iteration 1 leaves a record. */
export async function startRun(run: RunContext, resumed: boolean): Promise<void> {
  saveState(run);
  await waitForState(run);
  emit(run, {
    type: "run-start",
    agent: run.agent.name,
    task: run.state.task.title,
    cwd: run.cwd,
    maxIterations: run.maxIterations,
    resumed,
  });
}

function makePorts(
  options: RunOptions,
  agent: ResolvedAgent,
  runDir: string,
  clock: Clock,
): RunPorts {
  const schemas = new SchemaResolver(join(agent.dir, "schemas"));
  return {
    backend: options.backend,
    record: createRunRecord(runDir, { env: options.env ?? process.env }),
    clock,
    ...(options.onEvent === undefined ? {} : { listener: options.onEvent }),
    resolveSchema: memoize(
      (ref) => `${ref.file}#${ref.schema}`,
      (ref) => schemas.resolve(ref),
    ),
    renderPrompt: makePromptRenderer(),
    readFile: readOptionalFile,
    runValidator: async (name, context) => {
      const definition = agent.registry.validators[name];
      return definition === undefined ? unknownValidator(name) : runValidator(definition, context);
    },
    schemaValidators: new SchemaValidators(),
  };
}

function unknownValidator(name: string): ValidatorOutcome {
  return {
    validator: name,
    valid: false,
    params: {},
    durationMs: 0,
    configError: `the registry defines no validator "${name}"`,
  };
}

function newState(options: RunOptions, cwd: string, clock: Clock): RunState {
  if (options.task === undefined) {
    throw new CloserError("usage_error", "a new run needs a task", {
      expected: "a task (an issue or a text), or a run id to resume",
      fix: "pass --issue N, --task TEXT or --task-file FILE, or --resume RUN_ID",
    });
  }
  const startedAt = new Date(clock.now()).toISOString();
  const { agent } = options;
  return {
    version: RUN_STATE_VERSION,
    runId: options.runId ?? makeRunId(clock),
    agent: agent.name,
    task: options.task,
    args: options.args ?? {},
    cwd,
    status: "running",
    reason: "",
    iteration: 0,
    stepId: agent.registry.entryStep,
    counters: { failedChecks: 0, formatRetries: 0, undecidableStreak: 0 },
    totals: {
      costUsd: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      backendMs: 0,
    },
    startedAt,
    updatedAt: startedAt,
    sideEffects: [],
    warnings: [],
  };
}

async function resumeState(runDir: string, agent: ResolvedAgent, clock: Clock): Promise<RunState> {
  const previous = await readRunState(runDir);
  const file = join(runDir, "run.json");
  if (previous.status === "completed") {
    throw new CloserError(
      "usage_error",
      `run ${previous.runId} is already completed; there is nothing to resume`,
      {
        file,
        jsonPath: "status",
        found: previous.status,
        fix: "start a new run instead of resuming this one",
      },
    );
  }
  if (previous.agent !== agent.name) {
    throw new CloserError(
      "usage_error",
      `run ${previous.runId} belongs to agent "${previous.agent}"`,
      {
        file,
        jsonPath: "agent",
        expected: agent.name,
        found: previous.agent,
        fix: `resume it with agent "${previous.agent}"`,
      },
    );
  }
  const { endedAt: _ended, ...rest } = previous;
  return { ...rest, status: "running", reason: "", updatedAt: new Date(clock.now()).toISOString() };
}

async function readSystemPrompt(agent: ResolvedAgent): Promise<{ systemPrompt?: string }> {
  const file = await readOptionalFile(agent.runner.systemPromptPath);
  return file === undefined || file.text.trim() === "" ? {} : { systemPrompt: file.text };
}

/** `20300101-120000-ab12cd`: sortable by start time, unique by its random tail. */
export function makeRunId(clock: Clock): string {
  const stamp = new Date(clock.now()).toISOString().replace(/[-:]/g, "").replace("T", "-");
  return `${stamp.slice(0, 15)}-${clock
    .randomId()
    .replace(/[^a-zA-Z0-9]/g, "")
    .slice(0, 6)}`;
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
