import { rename } from "node:fs/promises";
import { join, resolve } from "node:path";
import { unpricedModelWarnings } from "../backends/pricing.js";
import { CloserError, isCloserError } from "../errors.js";
import { protectedSetFor } from "../integrity/protected-set.js";
import type { Declaration, DefinitionStart, RunSettings, RunStart } from "../loop/index.js";
import { refuseCompletedRun } from "../loop/prepare-run.js";
import { checkPlugins } from "../plugins/check-plugins.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import type { ExternalCondition } from "../ports/declaration.js";
import type { EventListener } from "../ports/events.js";
import type { Clock } from "../ports/loop-ports.js";
import type { Plugin } from "../ports/plugin.js";
import type { RunState, TaskInfo } from "../ports/run-state.js";
import type { BackendConfig } from "../ports/runner-config.js";
import { rebuildRunState } from "../record/rebuild-run-state.js";
import { createRunRecord, defaultRunsDir, readRunState } from "../record/run-record.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";
import { decisionPathOf, defaultDecisionFolder } from "./decision-path.js";
import { backendEnvironment, runEnvironments } from "./run-environments.js";
import type { Environment, RunBaseOptions, Serializer } from "./run-options.js";
import { makeSerializer } from "./run-pool.js";
import { makeSystemClock } from "./system-clock.js";

/**
 * A run's options with every default resolved — the one place they are
 * (the clock, the new run's id, the runs folder, the environment); the
 * backend is made by `resolveBackend` for the agent the run works with.
 */
export interface RunBase {
  readonly agent: ResolvedAgent;
  /** The project folder (absolute). */
  readonly cwd: string;
  /** The caller's backend, if any. */
  readonly backend?: Backend;
  /** The backend used when agent.json says `kind: "scripted"`. */
  readonly scripted?: Backend;
  readonly clock: Clock;
  /** The id a new run gets (a resumed run keeps its own). */
  readonly runId: string;
  /** Where run folders go (absolute). */
  readonly runsDir: string;
  readonly env: Environment;
  readonly signal: AbortSignal;
  readonly serialize: Serializer;
  readonly onEvent?: EventListener;
  readonly plugins: readonly Plugin[];
}

/**
 * The start of runTask and runIssue: the agent's static checks, as `closer
 * validate` makes them (a dangling step target or a template variable nobody
 * supplies stops the run here, before any model call), then every default of
 * the run resolved. A resumed run's checks are those of the definition it
 * resumes with (fixDefinition).
 */
export async function resolveCheckedRunBase(options: RunBaseOptions): Promise<RunBase> {
  const { assertAgentValid } = await import("../check/index.js");
  await assertAgentValid(options.agent);
  return await resolveRunBase(options);
}

/** Every default of a run. */
export async function resolveRunBase(options: RunBaseOptions): Promise<RunBase> {
  const cwd = resolve(options.cwd);
  const env = resolveEnvironment(options);
  const clock = options.clock ?? makeSystemClock();
  const { agent } = options;
  const plugins = options.plugins ?? [];
  checkPlugins(plugins); // before any folder, lock or worktree is made
  return {
    agent,
    cwd,
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    ...(options.scripted === undefined ? {} : { scripted: options.scripted }),
    clock,
    runId: options.runId ?? makeRunId(clock),
    runsDir: resolve(cwd, options.runsDir ?? agent.runner.logging.runsDir ?? defaultRunsDir(cwd)),
    env,
    signal: options.signal ?? new AbortController().signal,
    serialize: options.serialize ?? makeSerializer(),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    plugins,
  };
}

/**
 * The caller's backend, else the one `agent` (the run's, from its definition
 * snapshot) configures. Its executable, when written relative to the agent
 * folder, is the project's: it may lead out of the folder, and it serves the
 * model, not the checks (docs/integrity.md#definition-snapshot); a recording
 * stays inside the folder (docs/backends.md#replay).
 * The backends are loaded on first use, so a caller that brings its own does
 * not load them all.
 */
export async function resolveBackend(base: RunBase, agent: ResolvedAgent): Promise<Backend> {
  if (base.backend !== undefined) return base.backend;
  const { makeBackend } = await import("../backends/make-backend.js");
  return makeBackend(agent.runner.backend, {
    agentDir: base.agent.dir,
    env: base.env,
    processEnv: backendEnvironment(base.env, agent, agent.runner.backend),
    ...(base.scripted === undefined ? {} : { scripted: base.scripted }),
  });
}

/**
 * Starts loading the backends while the run prepares its tree and waits on
 * git, so `resolveBackend` finds them loaded (docs/cli.md#start-up). A failure
 * to load is `resolveBackend`'s to report.
 */
export function preloadBackends(base: RunBase): void {
  if (base.backend === undefined) import("../backends/make-backend.js").catch(() => undefined);
}

/**
 * Makes the backend a closure review names (docs/completion.md#closure-review)
 * like the run's own, once per configuration and only when a review asks for it.
 */
export function reviewBackendMaker(base: RunBase): (config: BackendConfig) => Promise<Backend> {
  const made = new Map<string, Promise<Backend>>();
  return (config) => {
    const key = JSON.stringify(config);
    const known = made.get(key);
    if (known !== undefined) return known;
    const backend = import("../backends/make-backend.js").then(({ makeBackend }) =>
      makeBackend(config, {
        agentDir: base.agent.dir,
        env: base.env,
        processEnv: backendEnvironment(base.env, base.agent, config),
        ...(base.scripted === undefined ? {} : { scripted: base.scripted }),
      }),
    );
    made.set(key, backend);
    return backend;
  };
}

/** The caller's environment, else closer's own. */
export function resolveEnvironment(options: Pick<RunBaseOptions, "env">): Environment {
  return options.env ?? process.env;
}

/** Where and how one run works: its tree, its start, and what closer adds to the loop. */
export interface RunPlace {
  /** The run's working tree (absolute). */
  readonly cwd: string;
  /** The backend of the agent the run works with (resolveBackend). */
  readonly backend: Backend;
  readonly start: RunStart;
  readonly worktree?: RunState["worktree"];
  readonly externalConditions?: readonly ExternalCondition[];
  readonly beforeChecks?: (declaration: Declaration) => Promise<void>;
  /** The definition snapshot `base.agent` was loaded from. */
  readonly definition?: DefinitionStart;
  /** Found before the run started (a recovered lock, a changed agent folder). */
  readonly warnings?: readonly string[];
  /** The agent's folder in the project, when `base.agent` was loaded from a snapshot of it. */
  readonly agentFolder?: string;
  /** The OS sandbox of the run (docs/sandbox.md); absent: none was set up. */
  readonly sandbox?: SandboxState;
}

/** The loop's settings for a run in `place`. */
export function settingsFor(base: RunBase, place: RunPlace): RunSettings {
  const runId = "resumed" in place.start ? place.start.resumed.runId : base.runId;
  const runDir = join(base.runsDir, runId);
  const { agent } = base;
  return {
    agent,
    backend: place.backend,
    reviewBackend: reviewBackendMaker(base),
    cwd: place.cwd,
    environments: runEnvironments(base.env, agent),
    ...(place.sandbox === undefined ? {} : { sandbox: place.sandbox }),
    clock: base.clock,
    runId,
    runDir,
    decisionPath: decisionPathOf(agent, place.cwd, defaultDecisionFolder(runDir, place.sandbox)),
    record: createRunRecord(runDir, {
      env: base.env,
      maxFieldBytes: agent.runner.record.maxFieldBytes,
    }),
    signal: base.signal,
    start: place.start,
    ...(place.definition === undefined ? {} : { definition: place.definition }),
    warnings: [...(place.warnings ?? []), ...unpricedModelWarnings(agent)],
    ...(place.worktree === undefined ? {} : { worktree: place.worktree }),
    protectedSet: protectedSetFor(agent, {
      projectDir: base.cwd,
      cwd: place.cwd,
      runDir,
      agentFolder: place.agentFolder ?? agent.dir,
    }),
    externalConditions: place.externalConditions ?? [],
    ...(base.onEvent === undefined ? {} : { onEvent: base.onEvent }),
    ...(place.beforeChecks === undefined ? {} : { beforeChecks: place.beforeChecks }),
    plugins: base.plugins,
  };
}

/** A run of the bare loop in the project folder: a new task, or a run to resume. */
export interface AgentRunOptions extends RunBaseOptions {
  /** Required for a new run. */
  readonly task?: TaskInfo;
  /** Id of a run to resume from its run.json (its pending prompt, step and session). */
  readonly resume?: string;
  /** Facts of the task that must hold before the run is complete. */
  readonly externalConditions?: readonly ExternalCondition[];
}

/**
 * Settings for `runAgent` from a caller's options: the loop alone, in the
 * project folder, with the agent as given, without the static checks,
 * worktree, locks, definition snapshot or side effects (runTask, runIssue
 * and resumeRun add those).
 */
export async function resolveRunSettings(options: AgentRunOptions): Promise<RunSettings> {
  const base = await resolveRunBase(options);
  const start: RunStart =
    options.resume === undefined
      ? newRun(options)
      : { resumed: await readRunToResume(base, options.resume) };
  return settingsFor(base, {
    cwd: base.cwd,
    backend: await resolveBackend(base, base.agent),
    start,
    ...(options.externalConditions === undefined
      ? {}
      : { externalConditions: options.externalConditions }),
  });
}

function newRun(options: AgentRunOptions): RunStart {
  if (options.task !== undefined) return { task: options.task, args: options.args ?? {} };
  throw new CloserError("usage_error", "a new run needs a task", {
    expected: "a task (an issue or a text), or a run id to resume",
    fix: "pass --issue N, --task TEXT or --task-file FILE, or --resume RUN_ID",
  });
}

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
      file: join(runDir, "run.json"),
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
  const file = join(runDir, "run.json");
  await rename(file, `${file}.damaged`).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  });
  return state;
}

/** `20300101-120000-ab12cd`: sortable by start time, unique by its random tail. */
export function makeRunId(clock: Clock): string {
  const stamp = new Date(clock.now()).toISOString().replace(/[-:]/g, "").replace("T", "-");
  return `${stamp.slice(0, 15)}-${clock
    .randomId()
    .replace(/[^a-zA-Z0-9]/g, "")
    .slice(0, 6)}`;
}
