import { basename } from "node:path";
import { CloserError } from "../errors.js";
import type { Usage } from "../ports/backend.js";
import type { Baseline } from "../ports/baseline.js";
import { addReceipt, type CostByReason } from "../ports/receipt-reason.js";
import { RUN_STATE_VERSION, type RunState, type TaskInfo } from "../ports/run-state.js";
import { RUN_FILES } from "./run-files.js";
import {
  hasDefinitionSnapshot,
  readEvents,
  readRunJson,
  runFilePath,
} from "./run-folder-reader.js";

type Event = Readonly<Record<string, unknown>>;

/** What the events of a run say, newest last. */
interface Recorded {
  readonly events: readonly Event[];
  last(type: string): Event | undefined;
  all(type: string): readonly Event[];
}

/**
 * run.json of a run rebuilt from what its folder holds besides it
 * (docs/record.md#rebuild): `events.jsonl` (iteration, step, session,
 * counters, totals, definition stamp, side effects, warnings), `task.json`
 * (the task, its arguments and worktree) and `baseline.json`. The definition
 * stamp is the events' own, so the resume still checks the snapshot against
 * it (docs/integrity.md#resume). What they cannot give — the pending retry
 * prompt, the last iteration's summary — the resumed run goes on without; what
 * a resume can't do without is named in a `record_error`.
 */
export async function rebuildRunState(runDir: string, entryStep: string): Promise<RunState> {
  const runId = basename(runDir);
  const recorded = recordedOf(await readEvents(runDir));
  const start = objectOf(await readRunJson(runDir, "task"));
  const baseline = objectOf(await readRunJson(runDir, "baseline"));
  const firstStart = recorded.all("run-start")[0];
  const lastStart = recorded.last("run-start");
  const definition = recorded.events.filter(
    (event) => event.type === "definition-snapshot" || event.type === "definition-reloaded",
  );
  const stamp = definition.at(-1);
  const missing = missingSources({
    hasRunStart: firstStart !== undefined && lastStart !== undefined,
    start,
    needsBaseline: recorded.last("baseline") !== undefined && baseline === undefined,
    needsStamp: stamp === undefined && hasDefinitionSnapshot(runDir),
  });
  if (missing.length > 0 || firstStart === undefined || lastStart === undefined || !start) {
    throw new CloserError("record_error", `run.json of run ${runId} cannot be rebuilt`, {
      file: runFilePath(runDir, "state"),
      expected: "run.json, or the record it can be rebuilt from",
      found: `missing: ${missing.join("; ")}`,
      fix: "start a new run instead of resuming this one",
    });
  }
  const end = recorded.last("run-end");
  const ended = end !== undefined && (end.at as number) >= (lastStart.at as number);
  const iterationStart = recorded.last("iteration-start");
  const backendEnds = recorded.all("backend-end");
  const session = [...backendEnds, ...recorded.all("backend-start")]
    .filter((event) => typeof event.sessionId === "string")
    .sort((left, right) => (left.at as number) - (right.at as number))
    .at(-1)?.sessionId as string | undefined;
  const lastAt = (recorded.events.at(-1)?.at as number | undefined) ?? Date.now();
  const worktree = start.worktree as RunState["worktree"];
  return {
    version: RUN_STATE_VERSION,
    runId,
    agent: String(lastStart.agent),
    ...(stamp === undefined
      ? {}
      : { definition: { hash: String(stamp.hash), files: Number(stamp.files) } }),
    task: start.task as TaskInfo,
    args: (start.args ?? {}) as Readonly<Record<string, unknown>>,
    cwd: String(lastStart.cwd),
    status: ended ? (end.status as RunState["status"]) : "error",
    reason: ended ? String(end.reason) : "run.json was rebuilt from events.jsonl",
    iteration: Number(iterationStart?.iteration ?? 0),
    stepId: String(iterationStart?.step ?? entryStep),
    ...(session === undefined ? {} : { sessionId: session }),
    counters: countersOf(recorded),
    totals: totalsOf(backendEnds),
    startedAt: new Date(firstStart.at as number).toISOString(),
    updatedAt: new Date(lastAt).toISOString(),
    ...(worktree === undefined ? {} : { worktree }),
    sideEffects: recorded
      .all("side-effect")
      .filter((event) => event.ok === true)
      .map((event) => String(event.action)),
    warnings: recorded.all("warning").map((event) => String(event.message)),
    ...(baseline === undefined ? {} : { baseline: baseline as unknown as Baseline }),
    flaky: recorded
      .all("validator-end")
      .filter((event) => event.flaky !== undefined)
      .map((event) => ({ iteration: Number(event.iteration), validator: String(event.validator) })),
    ...reviewOf(recorded.all("closure-review")),
  } as RunState;
}

/** The retry counters as the last events of each kind left them. */
function countersOf(recorded: Recorded): RunState["counters"] {
  const refuted = recorded.last("declaration-refuted")?.refutedDeclarations;
  return {
    failedChecks: Number(recorded.last("retry-select")?.attempt ?? 0),
    formatRetries: Number(recorded.last("format-check")?.formatRetries ?? 0),
    undecidableStreak: Number(recorded.last("decision")?.undecidableStreak ?? 0),
    ...(typeof refuted === "number" ? { refutedDeclarations: refuted } : {}),
  };
}

/** The closure reviews' tally, when the run had any. */
function reviewOf(reviews: readonly Event[]): Pick<RunState, "review"> {
  if (reviews.length === 0) return {};
  return {
    review: {
      rejections: reviews.filter((event) => event.allComplete === false).length,
      costUsd: sum(reviews, (event) => event.costUsd),
      durationMs: sum(reviews, (event) => event.durationMs),
    },
  };
}

/** What a rebuild needs and the run folder lacks, each with why it is needed. */
function missingSources(found: {
  hasRunStart: boolean;
  start: Record<string, unknown> | undefined;
  needsBaseline: boolean;
  needsStamp: boolean;
}): string[] {
  return [
    ...(found.hasRunStart
      ? []
      : ["a run-start event in events.jsonl (the agent, the working tree, the start time)"]),
    ...(found.start === undefined || typeof found.start.task !== "object"
      ? [`${RUN_FILES.task} (the task and its arguments; events.jsonl holds only the task's title)`]
      : []),
    ...(found.needsBaseline
      ? [`${RUN_FILES.baseline} (the baseline the integrity guards compare with)`]
      : []),
    ...(found.needsStamp
      ? [
          "a definition-snapshot event in events.jsonl (the stamp the run's definition snapshot is checked against)",
        ]
      : []),
  ];
}

function totalsOf(backendEnds: readonly Event[]): RunState["totals"] {
  const usage = (field: string) =>
    sum(backendEnds, (event) => (event.usage as Record<string, unknown> | undefined)?.[field]);
  const lastTotal = backendEnds.at(-1)?.totalCostUsd;
  return {
    costUsd: typeof lastTotal === "number" ? lastTotal : sum(backendEnds, (event) => event.costUsd),
    usage: {
      inputTokens: usage("inputTokens"),
      outputTokens: usage("outputTokens"),
      cacheReadTokens: usage("cacheReadTokens"),
      cacheCreationTokens: usage("cacheCreationTokens"),
    },
    backendMs: sum(backendEnds, (event) => event.durationMs),
    ...costByReasonOf(backendEnds),
  };
}

/** The totals by reason, when every query of the record names its reason (docs/observe.md#receipts). */
function costByReasonOf(backendEnds: readonly Event[]): { costByReason?: CostByReason } {
  let costByReason: CostByReason = {};
  for (const event of backendEnds) {
    if (typeof event.reason !== "string") return {};
    costByReason = addReceipt(costByReason, event.reason, {
      costUsd: typeof event.costUsd === "number" ? event.costUsd : 0,
      durationMs: typeof event.durationMs === "number" ? event.durationMs : 0,
      ...(isUsage(event.usage) ? { usage: event.usage } : {}),
    });
  }
  return { costByReason };
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== "object" || value === null) return false;
  const usage = value as Record<string, unknown>;
  return ["inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens"].every(
    (field) => typeof usage[field] === "number",
  );
}

function sum(events: readonly Event[], value: (event: Event) => unknown): number {
  let total = 0;
  for (const event of events) {
    const found = value(event);
    if (typeof found === "number" && Number.isFinite(found)) total += found;
  }
  return total;
}

/** The events of events.jsonl, asked by type. */
function recordedOf(events: readonly Event[]): Recorded {
  return {
    events,
    last: (type) => events.findLast((event) => event.type === type),
    all: (type) => events.filter((event) => event.type === type),
  };
}

function objectOf(parsed: unknown): Record<string, unknown> | undefined {
  return typeof parsed === "object" && parsed !== null
    ? (parsed as Record<string, unknown>)
    : undefined;
}
