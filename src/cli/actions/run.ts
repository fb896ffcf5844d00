import { resolve } from "node:path";
import { readCliOverrides, withCliOverrides } from "../../definition/apply-cli-overrides.js";
import { CloserError, wholeNumberAtLeastOne } from "../../errors.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import type { TaskInfo } from "../../ports/run-state.js";
import { makeRedactor } from "../../record/secret-redactor.js";
import {
  describeOutcome,
  EXIT_CODES,
  exitCodeOfOutcome,
  exitCodeOfSignal,
  formatBatchTable,
  outcomeJson,
  type RunBaseOptions,
  readTaskFile,
  resumeRun,
  runBatch,
  runIssue,
  runTask,
  taskFromText,
} from "../../run/index.js";
import { makeProgressReporter, shouldColor } from "../progress.js";
import { withInterrupt } from "../run/interrupt.js";
import { loadRunAgent } from "../run/load-run-agent.js";
import { parseParameterFlags } from "../run/parameter-flags.js";
import { RUN_OPTIONS } from "../run/run-help.js";
import {
  type RunFlags,
  type RunInvocation,
  type RunMode,
  readRunInvocation,
} from "../run/run-invocation.js";
import { exitCodeAfterError } from "./error-exit.js";

const writeError = (text: string) => {
  process.stderr.write(text);
};

/** Everything `closer run` does; returns the exit code. */
export async function runFromCommandLine(
  tokens: readonly string[],
  flags: RunFlags,
): Promise<number> {
  try {
    const cwd = resolve(flags.cwd ?? process.cwd());
    // The options are checked against the agent's own first (docs/cli.md#unknown-options).
    const loaded = await loadRunAgent(tokens, flags, cwd);
    const invocation = readRunInvocation(tokens, flags);
    const progress = progressFlags(flags);
    const args = parseParameterFlags({
      tokens: invocation.parameterTokens,
      agent: loaded,
      closerValues: { "--issue": flags.issue },
      supplied: suppliedParameters(invocation, loaded),
      closerOptions: RUN_OPTIONS,
    });
    const agent = withCliOverrides(loaded, {
      ...(invocation.maxIterations === undefined
        ? {}
        : { maxIterations: invocation.maxIterations }),
      ...readCliOverrides({
        ...(flags.backend === undefined ? {} : { backend: flags.backend }),
        ...(flags.model === undefined ? {} : { model: flags.model }),
        ...(flags.sandbox === undefined ? {} : { sandbox: flags.sandbox }),
        ...(flags.runsDir === undefined ? {} : { runsDir: resolve(flags.runsDir) }),
        ...(flags.verbose === true ? { verbose: true } : {}),
        ...(flags.deliver === true ? { deliver: true } : {}),
        worktree: flags.worktree,
      }),
    });
    const task = await taskOf(invocation);
    const base = {
      agent,
      cwd,
      args,
      env: process.env,
      // An issue run works in a worktree unless told not to; agent.json's worktree.enabled is a task run's.
      ...(flags.worktree ? {} : { worktree: false }),
      ...(flags.branch === undefined ? {} : { branch: flags.branch }),
      ...(flags.baseBranch === undefined ? {} : { baseBranch: flags.baseBranch }),
    };
    return await withInterrupt(
      (signal) => execute(invocation, { ...base, signal }, { flags, task, progress }),
      { write: writeError },
    );
  } catch (error) {
    return exitCodeAfterError(error);
  }
}

function suppliedParameters(invocation: RunInvocation, agent: ResolvedAgent): string[] {
  if (invocation.mode.kind === "resume") return Object.keys(agent.parameters);
  return invocation.mode.kind === "issue" || invocation.mode.kind === "batch" ? ["issue"] : [];
}

async function taskOf(invocation: RunInvocation): Promise<TaskInfo | undefined> {
  const { mode } = invocation;
  if (mode.kind === "task") return taskFromText(mode.text);
  if (mode.kind === "task-file") return readTaskFile(mode.file, process.cwd());
  return undefined;
}

interface ExecuteContext {
  readonly flags: RunFlags;
  readonly task: TaskInfo | undefined;
  readonly progress: ProgressFlags;
}

/** What `--quiet` and `--heartbeat` ask of the progress (docs/observe.md#live-view). */
interface ProgressFlags {
  readonly quiet: boolean;
  readonly heartbeatMs?: number;
}

function progressFlags(flags: RunFlags): ProgressFlags {
  if (flags.quiet === true && flags.verbose === true) {
    throw new CloserError("usage_error", "--quiet and --verbose ask for opposite things", {
      fix: "give one of them",
    });
  }
  return {
    quiet: flags.quiet === true,
    ...(flags.heartbeat === undefined
      ? {}
      : { heartbeatMs: wholeNumberAtLeastOne("--heartbeat", flags.heartbeat) * 1000 }),
  };
}

type ExecuteOptions = RunBaseOptions & { readonly signal: AbortSignal };

function execute(
  invocation: RunInvocation,
  base: ExecuteOptions,
  context: ExecuteContext,
): Promise<number> {
  const { mode } = invocation;
  return mode.kind === "batch"
    ? executeBatch(mode, base, context)
    : executeOne(mode, base, context);
}

/** How progress is shown; secrets are redacted as in the run record (docs/record.md#secrets). */
function progressStyle(base: RunBaseOptions, progress: ProgressFlags) {
  return {
    ...progress,
    verbose: base.agent.runner.logging.verbose,
    color: shouldColor(process.stderr, process.env),
    redact: makeRedactor(base.env ?? process.env),
  };
}

async function executeOne(
  mode: Exclude<RunMode, { kind: "batch" }>,
  base: ExecuteOptions,
  context: ExecuteContext,
): Promise<number> {
  const { flags } = context;
  const repo = flags.repo === undefined ? {} : { repo: flags.repo };
  const reporter = makeProgressReporter({
    write: writeError,
    live: Boolean(process.stderr.isTTY),
    ...progressStyle(base, context.progress),
  });
  const options = { ...base, onEvent: reporter };
  try {
    const outcome =
      mode.kind === "issue"
        ? await runIssue({ ...options, ...repo, issue: mode.issue })
        : mode.kind === "resume"
          ? await resumeRun({
              ...options,
              ...repo,
              resume: mode.runId,
              reloadDefinition: mode.reloadDefinition,
              rebuild: mode.rebuild,
            })
          : await runTask({ ...options, task: context.task ?? taskFromText("") });
    reporter.stop();
    if (flags.json === true) process.stdout.write(`${JSON.stringify(outcomeJson(outcome))}\n`);
    else writeError(`${describeOutcome(outcome, reporter.shownEnd()).join("\n")}\n`);
    return exitCodeOfOutcome(outcome, interruptOf(base.signal));
  } finally {
    reporter.stop();
  }
}

async function executeBatch(
  mode: Extract<RunMode, { kind: "batch" }>,
  base: ExecuteOptions,
  { flags, progress }: ExecuteContext,
): Promise<number> {
  const style = progressStyle(base, progress);
  const result = await runBatch({
    ...base,
    ...(flags.repo === undefined ? {} : { repo: flags.repo }),
    ...(mode.label === undefined ? {} : { label: mode.label }),
    ...(mode.project === undefined ? {} : { project: mode.project }),
    ...(mode.concurrency === undefined ? {} : { concurrency: mode.concurrency }),
    onIssues: (issues) =>
      writeError(
        issues.length === 0
          ? "closer: no open issue matches\n"
          : `closer: ${issues.length} issue(s): ${issues.map((issue) => `#${issue.number}`).join(", ")}\n`,
      ),
    // Runs of a batch share stderr: one line per event, each naming its issue, no live line.
    onEventFor: (issue) =>
      makeProgressReporter({ write: prefixLines(`#${issue} `), live: false, ...style }),
  });
  writeError(`${formatBatchTable(result.outcomes)}\n`);
  if (flags.json === true) {
    const line = { success: result.success, results: result.outcomes.map(outcomeJson) };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
  if (base.signal.aborted) return exitCodeOfSignal(interruptOf(base.signal).signal ?? "SIGINT");
  return result.success ? EXIT_CODES.completed : EXIT_CODES.notCompleted;
}

/** Whether a signal stopped the run, and which (the CLI aborts with the signal's name). */
function interruptOf(signal: AbortSignal): { interrupted: boolean; signal?: string } {
  const reason: unknown = signal.reason;
  return { interrupted: signal.aborted, ...(typeof reason === "string" ? { signal: reason } : {}) };
}

/** A writer that puts `prefix` before every line (the issue of a batch run). */
function prefixLines(prefix: string): (text: string) => void {
  return (text) => {
    const lines = text.split("\n");
    const last = lines.pop() ?? "";
    const prefixed = lines.map((line) => (line === "" ? line : `${prefix}${line}`));
    writeError([...prefixed, last === "" ? "" : `${prefix}${last}`].join("\n"));
  };
}
