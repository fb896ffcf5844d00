import { join } from "node:path";
import { unpricedModelWarnings } from "../backends/pricing.js";
import { normalizeDefinitionText } from "../definition/definition-text.js";
import { CloserError } from "../errors.js";
import { protectedSetFor } from "../integrity/protected-set.js";
import type { SetupOutcome } from "../loop/index.js";
import type { DefinitionStart, RunSettings, RunStart } from "../loop/run-settings.js";
import { makePluginHost } from "../plugins/plugin-host.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import type { ChecksRoomPort } from "../ports/loop-ports.js";
import type { RunState, SandboxRecord, TaskInfo } from "../ports/run-state.js";
import { readOptionalFile } from "../record/read-optional-file.js";
import { createRunRecord } from "../record/run-record.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";
import { decisionPathOf, defaultDecisionFolder } from "./decision-path.js";
import { makeLoopPorts } from "./make-loop-ports.js";
import { type RunBase, resolveBackend, resolveRunBase, reviewBackendMaker } from "./run-base.js";
import { runEnvironments } from "./run-environments.js";
import type { RunBaseOptions } from "./run-options.js";
import { readRunToResume } from "./run-to-resume.js";

/** Where and how one run works: its tree, its start, and what closer adds to the loop. */
export interface RunPlace {
  /** The run's working tree (absolute). */
  readonly workTree: string;
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
  /** Where the checks judge the work (docs/integrity.md#clean-room); absent: in the tree. */
  readonly checksRoom?: ChecksRoomPort;
  /** The project's setup run in the tree before the run (docs/definition.md#setup). */
  readonly setup?: readonly SetupOutcome[];
}

/** The loop's settings for a run in `place`, its ports made here, once (docs/architecture.md#the-seam). */
export async function makeRunSettings(base: RunBase, place: RunPlace): Promise<RunSettings> {
  const runId = "resumed" in place.start ? place.start.resumed.runId : base.runId;
  const runDir = join(base.runsDir, runId);
  const { agent } = base;
  const environments = runEnvironments(base.env, agent, base.credentials);
  const plugins = makePluginHost(base.plugins);
  const systemPrompt = await readSystemPrompt(agent);
  return {
    agent,
    ports: makeLoopPorts({
      agent,
      backend: place.backend,
      reviewBackend: reviewBackendMaker(base),
      record: createRunRecord(runDir, {
        env: base.env,
        maxFieldBytes: agent.runner.record.maxFieldBytes,
      }),
      clock: base.clock,
      ...(base.onEvent === undefined ? {} : { listener: base.onEvent }),
      environments,
      ...(place.sandbox?.on === true ? { sandbox: place.sandbox.sandbox } : {}),
      ...(place.checksRoom === undefined ? {} : { checksRoom: place.checksRoom }),
      protectedSet: protectedSetFor(agent, {
        projectDir: base.projectDir,
        workTree: place.workTree,
        runDir,
        agentFolder: place.agentFolder ?? agent.dir,
      }),
      plugins,
    }),
    plugins,
    workTree: place.workTree,
    environments,
    ...(place.sandbox === undefined ? {} : { sandbox: sandboxRecord(place.sandbox) }),
    runId,
    runDir,
    decisionPath: decisionPathOf(
      agent,
      place.workTree,
      defaultDecisionFolder(runDir, place.sandbox),
    ),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    signal: base.signal,
    start: place.start,
    ...(place.definition === undefined ? {} : { definition: place.definition }),
    warnings: [...(place.warnings ?? []), ...unpricedModelWarnings(agent)],
    ...(place.worktree === undefined ? {} : { worktree: place.worktree }),
    ...(place.setup === undefined ? {} : { setup: place.setup }),
    externalConditions: place.externalConditions ?? [],
    ...(place.beforeChecks === undefined ? {} : { beforeChecks: place.beforeChecks }),
  };
}

/** The sandbox as run.json keeps it: on with its policy, or off and why. */
function sandboxRecord(state: SandboxState): SandboxRecord {
  if (!state.on) return { on: false, reason: state.reason };
  return { on: true, policy: { ...state.sandbox.policy }, refusals: 0 };
}

/** The agent's system prompt file, read once for the run; absent when missing or blank. */
export async function readSystemPrompt(agent: ResolvedAgent): Promise<string | undefined> {
  const file = await readOptionalFile(agent.runner.systemPromptPath);
  const text = file === undefined ? "" : normalizeDefinitionText(file.text);
  return text.trim() === "" ? undefined : text;
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
  return makeRunSettings(base, {
    workTree: base.projectDir,
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
