import { resolve } from "node:path";
import type { BackendCredentials } from "../credentials/backend-credentials.js";
import { assertPlugins } from "../plugins/assert-plugins.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import type { EventListener } from "../ports/events.js";
import type { Clock } from "../ports/loop-ports.js";
import type { Plugin } from "../ports/plugin.js";
import type { BackendConfig } from "../ports/runner-config.js";
import { resolveRunsDir } from "../record/runs-dir.js";
import { backendEnvironment } from "./run-environments.js";
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
  readonly projectDir: string;
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
  /**
   * The run's model credentials, once its tree is known (runInTree): the backends' keys behind
   * closer's key proxy, their state folders the run's (docs/integrity.md#credentials).
   */
  readonly credentials?: BackendCredentials;
}

/**
 * The start of runTask and runIssue: the agent's static checks, as `closer
 * validate` makes them (a dangling step target or a template variable nobody
 * supplies stops the run here, before any model call), then every default of
 * the run resolved. A resumed run's checks are those of the definition it
 * resumes with (fixDefinition).
 */
export async function resolveLintedRunBase(options: RunBaseOptions): Promise<RunBase> {
  const { assertAgentValid } = await import("../lint/index.js");
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
  assertPlugins(plugins); // before any folder, lock or worktree is made
  return {
    agent,
    projectDir: cwd,
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    ...(options.scripted === undefined ? {} : { scripted: options.scripted }),
    clock,
    runId: options.runId ?? makeRunId(clock),
    runsDir: resolveRunsDir(cwd, { given: options.runsDir, agent }),
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
    processEnv: backendEnvironment(base.env, agent, agent.runner.backend, base.credentials),
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
        processEnv: backendEnvironment(base.env, base.agent, config, base.credentials),
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

/** `20300101-120000-ab12cd`: sortable by start time, unique by its random tail. */
export function makeRunId(clock: Clock): string {
  const stamp = new Date(clock.now()).toISOString().replace(/[-:]/g, "").replace("T", "-");
  return `${stamp.slice(0, 15)}-${clock
    .randomId()
    .replace(/[^a-zA-Z0-9]/g, "")
    .slice(0, 6)}`;
}
