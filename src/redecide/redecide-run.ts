/**
 * `closer replay` (docs/replay.md#replay): the recorded run's decisions made
 * again by the current loop, every answer taken from the record, and the two
 * decision trails compared.
 */
import { join, resolve } from "node:path";
import { applyCliOverrides } from "../definition/apply-cli-overrides.js";
import { loadAgent } from "../definition/load-agent.js";
import { CloserError, isCloserError } from "../errors.js";
import { protectedSetFor } from "../integrity/protected-set.js";
import { type RunSettings, type RunStart, runAgent } from "../loop/index.js";
import { makePluginHost } from "../plugins/plugin-host.js";
import type { ResolvedAgent } from "../ports/agent.js";
import { RUN_STATE_VERSION } from "../ports/run-state.js";
import { definitionSnapshotDir } from "../record/definition-snapshot.js";
import { makeLoopPorts } from "../run/make-loop-ports.js";
import { readSystemPrompt } from "../run/make-run-settings.js";
import { runEnvironments } from "../run/run-environments.js";
import { compareTrails, type TrailDifference } from "./compare-trails.js";
import { decisionTrail, type TrailEntry } from "./decision-trail.js";
import { makeRecordedPorts } from "./recorded-ports.js";
import { type RecordedRun, readRecordedRun } from "./recorded-run.js";

export interface RedecideOptions {
  /** The recorded run's folder. */
  readonly runDir: string;
  /** The agent folder to decide with instead of the run's own `definition/` snapshot. */
  readonly definitionDir?: string;
}

export interface RedecideResult {
  readonly identical: boolean;
  readonly differences: readonly TrailDifference[];
  readonly recorded: readonly TrailEntry[];
  readonly replayed: readonly TrailEntry[];
}

export async function redecideRun(options: RedecideOptions): Promise<RedecideResult> {
  const runDir = resolve(options.runDir);
  const recorded = await readRecordedRun(runDir);
  const agent = await agentOf(recorded, options.definitionDir);
  const abort = new AbortController();
  const ports = makeRecordedPorts(recorded, agent, abort);
  const plugins = makePluginHost([]);
  const environments = runEnvironments({}, agent);
  const systemPrompt = await readSystemPrompt(agent);
  const settings: RunSettings = {
    agent,
    ports: makeLoopPorts({
      agent,
      backend: ports.backend,
      record: ports.record,
      clock: ports.clock,
      environments,
      protectedSet: protectedSetFor(agent, {
        projectDir: recorded.cwd,
        workTree: recorded.cwd,
        runDir,
        agentFolder: agent.dir,
      }),
      // Every answer comes from the record: the checks, the tree, the decision file, the sandbox.
      overrides: {
        validatorRunner: ports.validatorRunner,
        integrity: ports.integrity,
        readFile: ports.readFile,
        ...(ports.sandbox === undefined ? {} : { sandbox: ports.sandbox }),
      },
      plugins,
    }),
    plugins,
    workTree: recorded.cwd,
    environments,
    runId: `replay-${recorded.agentName}`,
    runDir,
    decisionPath: join(runDir, "decision.json"),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    signal: abort.signal,
    start: startOf(recorded, agent),
    externalConditions: [],
  };
  await runAgent(settings);
  const recordedTrail = decisionTrail(recorded.events);
  const replayedTrail = decisionTrail(ports.record.events);
  const { shortfall } = ports.cursor;
  const differences =
    shortfall === undefined
      ? compareTrails(recordedTrail, replayedTrail)
      : [
          ...compareTrails(
            upTo(recordedTrail, shortfall.iteration),
            upTo(replayedTrail, shortfall.iteration),
          ),
          {
            iteration: shortfall.iteration,
            what: "replay stopped: the new code asks for",
            recorded: "(not recorded)",
            replayed: shortfall.missing,
          },
        ];
  return {
    identical: differences.length === 0,
    differences,
    recorded: recordedTrail,
    replayed: replayedTrail,
  };
}

function upTo(trail: readonly TrailEntry[], iteration: number): TrailEntry[] {
  return trail.filter((entry) => entry.iteration !== "end" && entry.iteration <= iteration);
}

/** The run's own definition snapshot, or the folder given; with the cap the last attempt ran under. */
async function agentOf(recorded: RecordedRun, definitionDir?: string): Promise<ResolvedAgent> {
  const dir = resolve(definitionDir ?? definitionSnapshotDir(recorded.runDir));
  let agent: ResolvedAgent;
  try {
    agent = await loadAgent(recorded.agentName, { cwd: dir, dir });
  } catch (error) {
    if (!isCloserError(error)) throw error;
    throw new CloserError(
      "record_error",
      `the agent definition to replay with cannot be loaded: ${error.message}`,
      {
        file: dir,
        expected: "an agent folder: the run's definition/ snapshot, or --definition DIR",
        fix: "pass --definition .agent/<name> for a run recorded without a definition snapshot",
        cause: error,
      },
    );
  }
  return recorded.maxIterations > 0
    ? applyCliOverrides(agent, { maxIterations: recorded.maxIterations })
    : agent;
}

/**
 * The run starts as the recorded one did, with the recorded baseline already taken (its checks
 * are not decisions of the loop); a run recorded before its baseline starts new.
 */
function startOf(recorded: RecordedRun, agent: ResolvedAgent): RunStart {
  if (recorded.baseline === undefined) return { task: recorded.task, args: recorded.args };
  const at = new Date(Number(recorded.events[0]?.at ?? 0)).toISOString();
  return {
    resumed: {
      version: RUN_STATE_VERSION,
      runId: `replay-${recorded.agentName}`,
      agent: agent.name,
      task: recorded.task,
      args: recorded.args,
      cwd: recorded.cwd,
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
      startedAt: at,
      updatedAt: at,
      sideEffects: [],
      warnings: [],
      baseline: recorded.baseline,
    },
  };
}
