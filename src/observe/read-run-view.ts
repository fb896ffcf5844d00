import type { TerminalStatus } from "../ports/events.js";
import {
  arrayOf,
  type Json,
  num,
  obj,
  optionalNumber,
  str,
  strings,
  sum,
} from "../record/loose-json.js";
import { readEvents, readRunJson } from "../record/run-folder-reader.js";
import { foldEvents } from "./fold-events.js";
import type { BaselineView, EndView, ReasonTotal, Receipt, RunView, TaskView } from "./run-view.js";
import { NO_USAGE, sumUsage, usageOf } from "./token-usage.js";

/**
 * One run as closer shows it (docs/observe.md#run-view), read from its folder:
 * run.json, events.jsonl, task.json and baseline.json. A run that crashed (no
 * `run-end`), a truncated last line, a damaged run.json, a resumed run and a run
 * recorded before receipts had a `reason` are all read; what is missing stays out.
 */
export async function readRunView(runDir: string): Promise<RunView> {
  const [state, events, taskFile, baselineFile] = await Promise.all([
    readRunJson(runDir, "state").then(obj),
    readEvents(runDir).then((all) => all.filter((event) => typeof event.type === "string")),
    readRunJson(runDir, "task").then(obj),
    readRunJson(runDir, "baseline").then(obj),
  ]);
  const folded = await foldEvents(events, runDir);
  const runStart = events.find((event) => event.type === "run-start");
  const status = statusOf(state, folded.runEnd);
  const startedAt = str(state?.startedAt) ?? isoAt(runStart?.at) ?? "";
  const endedAt =
    status === "running" ? undefined : (str(state?.endedAt) ?? isoAt(folded.runEnd?.at));
  const lastSeen = endedAt ?? str(state?.updatedAt) ?? isoAt(events.at(-1)?.at);
  const totals = obj(state?.totals);
  const receiptsCost = sum(folded.receipts.map((receipt) => receipt.costUsd));
  const reason = str(state?.reason) || str(folded.runEnd?.reason) || "";
  const worktree = worktreeOf(state?.worktree ?? taskFile?.worktree);
  const baseline = baselineOf(baselineFile ?? obj(state?.baseline), folded.baselineEvent);
  const end: EndView = {
    status,
    reason,
    success: folded.runEnd?.success === true || (status === "completed" && !folded.runEnd),
    sideEffects: folded.sideEffects,
    warnings: strings(state?.warnings) ?? folded.warnings,
    refutedDeclarations:
      num(obj(state?.counters)?.refutedDeclarations) ?? folded.refutedDeclarations,
    flaky: flakyOf(state?.flaky),
  };
  return {
    runId: str(state?.runId) ?? str(runStart?.runId) ?? lastSegment(runDir),
    agent: str(state?.agent) ?? str(runStart?.agent) ?? "",
    runDir,
    task: taskOf(obj(taskFile?.task) ?? obj(state?.task), str(runStart?.task)),
    status,
    reason,
    startedAt,
    ...(endedAt === undefined ? {} : { endedAt }),
    durationMs: spanMs(startedAt, lastSeen),
    iterations: num(state?.iteration) ?? Math.max(0, ...folded.timeline.map((i) => i.iteration)),
    attempts: Math.max(1, folded.attempts),
    costUsd: num(totals?.costUsd) ?? receiptsCost,
    usage: usageOf(totals?.usage) ?? sumUsage(folded.receipts.map((receipt) => receipt.usage)),
    ...(worktree === undefined ? {} : { worktree }),
    setup: folded.setup,
    ...(baseline === undefined ? {} : { baseline }),
    timeline: folded.timeline,
    end,
    receipts: folded.receipts,
    costByReason: totalsByReason(folded.receipts),
  };
}

/** The receipts summed by reason, in order of first appearance. */
export function totalsByReason(receipts: readonly Receipt[]): ReasonTotal[] {
  const totals = new Map<string, ReasonTotal>();
  for (const receipt of receipts) {
    const before = totals.get(receipt.reason);
    totals.set(receipt.reason, {
      reason: receipt.reason,
      queries: (before?.queries ?? 0) + 1,
      costUsd: (before?.costUsd ?? 0) + receipt.costUsd,
      durationMs: (before?.durationMs ?? 0) + receipt.durationMs,
      usage: sumUsage([before?.usage ?? NO_USAGE, receipt.usage]),
    });
  }
  return [...totals.values()];
}

const TERMINAL: readonly TerminalStatus[] = [
  "completed",
  "max_iterations",
  "retries_exhausted",
  "budget_exhausted",
  "aborted",
  "blocked",
  "error",
];

function statusOf(state: Json | undefined, runEnd: Json | undefined): TerminalStatus | "running" {
  const recorded = str(state?.status);
  if (TERMINAL.includes(recorded as TerminalStatus)) return recorded as TerminalStatus;
  const ended = str(runEnd?.status);
  if (recorded === undefined && TERMINAL.includes(ended as TerminalStatus)) {
    return ended as TerminalStatus;
  }
  return "running";
}

function taskOf(task: Json | undefined, title: string | undefined): TaskView {
  const url = str(task?.url);
  const issueNumber = num(task?.issueNumber);
  return {
    kind: task?.kind === "issue" ? "issue" : "text",
    title: str(task?.title) ?? title ?? "",
    body: str(task?.body) ?? "",
    ...(url === undefined ? {} : { url }),
    ...(issueNumber === undefined ? {} : { issueNumber }),
  };
}

function baselineOf(baseline: Json | undefined, event: Json | undefined): BaselineView | undefined {
  if (baseline === undefined && event === undefined) return undefined;
  const measured = new Map<string, Json>();
  for (const check of arrayOf(event?.checks)) {
    const name = str(check.validator);
    if (name !== undefined) measured.set(name, check);
  }
  // A baseline kept before its checks ended (they ran beside the first query) has none of them.
  const kept = baseline?.checksPending === true ? undefined : baseline?.checks;
  const checks = arrayOf(kept ?? event?.checks).map((check) => {
    const validator = str(check.validator) ?? "";
    const found = measured.get(validator);
    return {
      validator,
      valid: check.valid === true,
      ...optionalNumber("durationMs", found?.durationMs),
      ...optionalNumber("tests", found?.tests),
    };
  });
  const protectedFiles = obj(baseline?.protectedFiles);
  const commit = str(baseline?.commit);
  return {
    ...(commit === undefined ? {} : { commit }),
    checks,
    dirtyFiles: strings(baseline?.dirtyFiles ?? event?.dirtyFiles) ?? [],
    protectedFiles:
      protectedFiles === undefined
        ? (num(event?.protectedFiles) ?? 0)
        : Object.keys(protectedFiles).length,
    ...optionalNumber("durationMs", event?.durationMs),
  };
}

function worktreeOf(value: unknown): RunView["worktree"] {
  const worktree = obj(value);
  const path = str(worktree?.path);
  const branch = str(worktree?.branch);
  const baseBranch = str(worktree?.baseBranch);
  if (path === undefined || branch === undefined || baseBranch === undefined) return undefined;
  return { path, branch, baseBranch };
}

function flakyOf(value: unknown): EndView["flaky"] {
  return arrayOf(value).map((entry) => ({
    iteration: num(entry.iteration) ?? 0,
    validator: str(entry.validator) ?? "",
  }));
}

function isoAt(at: unknown): string | undefined {
  const ms = num(at);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function spanMs(from: string, to: string | undefined): number {
  const start = Date.parse(from);
  const end = to === undefined ? Number.NaN : Date.parse(to);
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : 0;
}

function lastSegment(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
}
