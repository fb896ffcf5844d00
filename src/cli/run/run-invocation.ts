import { readCliOverrides } from "../../definition/apply-cli-overrides.js";
import { CloserError, wholeNumberAtLeastOne } from "../../errors.js";

/** `closer run`'s options as commander parses them (values still text). */
export interface RunFlags {
  readonly agent?: string;
  readonly task?: string;
  readonly taskFile?: string;
  readonly issue?: string;
  readonly cwd?: string;
  readonly maxIterations?: string;
  readonly branch?: string;
  readonly baseBranch?: string;
  /** False with `--no-worktree`. */
  readonly worktree: boolean;
  /** `--deliver`: the verified work goes to origin (docs/queue.md#delivery). */
  readonly deliver?: boolean;
  readonly backend?: string;
  readonly model?: string;
  readonly sandbox?: string;
  readonly resume?: string;
  readonly reloadDefinition?: boolean;
  readonly rebuild?: boolean;
  readonly runsDir?: string;
  readonly json?: boolean;
  readonly verbose?: boolean;
  readonly quiet?: boolean;
  readonly heartbeat?: string;
  readonly label?: string;
  readonly project?: string;
  readonly concurrency?: string;
  readonly repo?: string;
}

/** What the command line asks for. */
export type RunMode =
  | { readonly kind: "task"; readonly text: string }
  | { readonly kind: "task-file"; readonly file: string }
  | { readonly kind: "issue"; readonly issue: number }
  | {
      readonly kind: "batch";
      readonly label?: string;
      readonly project?: number;
      readonly concurrency?: number;
    }
  | {
      readonly kind: "resume";
      readonly runId: string;
      readonly reloadDefinition: boolean;
      /** `--rebuild`: run.json rebuilt from events.jsonl first. */
      readonly rebuild: boolean;
    };

export interface RunInvocation {
  readonly agentName: string;
  readonly mode: RunMode;
  /** Tokens left for the agent's own parameter flags. */
  readonly parameterTokens: readonly string[];
  /** `--max-iterations`, read as the command line is checked. */
  readonly maxIterations?: number;
}

const USAGE_FIX =
  "closer run <agent> --issue N | --task TEXT | --task-file FILE | --label L | --resume RUN_ID";

function usage(message: string, fix: string = USAGE_FIX): CloserError {
  return new CloserError("usage_error", message, { fix });
}

/**
 * Checks the command line as a whole: which agent (positional or `--agent`,
 * not two different ones), exactly one task source, and options that only
 * fit some modes. `tokens` are commander's leftovers: the agent name first
 * (when given as a positional), then what closer did not recognise.
 */
export function readRunInvocation(tokens: readonly string[], flags: RunFlags): RunInvocation {
  const { positional, extra, rest } = splitTokens(tokens);
  const agentName = agentNameOf(positional, flags.agent, rest.length > 0);
  const mode = modeOf(flags);
  assertModeOptions(mode, flags);
  return {
    agentName,
    mode,
    parameterTokens: [...extra, ...rest],
    ...readCliOverrides(
      flags.maxIterations === undefined ? {} : { maxIterations: flags.maxIterations },
    ),
  };
}

/** commander's leftovers: the operands before the first option (the agent first), and the rest. */
function splitTokens(tokens: readonly string[]) {
  const firstOption = tokens.findIndex((token) => token.startsWith("-"));
  const operands = firstOption === -1 ? [...tokens] : tokens.slice(0, firstOption);
  const rest = firstOption === -1 ? [] : tokens.slice(firstOption);
  const [positional, ...extra] = operands;
  return { positional, extra, rest };
}

/**
 * The agent the command line names, when it names one (positional or `--agent`); two
 * different names are a usage error. Read before the rest, so the agent's own options are
 * known when the command line is checked (docs/cli.md#unknown-options).
 */
export function readRunAgentName(tokens: readonly string[], flags: RunFlags): string | undefined {
  const { positional } = splitTokens(tokens);
  if (positional === undefined && flags.agent === undefined) return undefined;
  return agentNameOf(positional, flags.agent, false);
}

function agentNameOf(
  positional: string | undefined,
  flag: string | undefined,
  hasUnknownOptions: boolean,
): string {
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw usage(
      `two different agents named: "${positional}" and --agent "${flag}"`,
      "name the agent once: closer run <agent> … or closer run --agent <agent> …",
    );
  }
  const name = positional ?? flag;
  if (name !== undefined) return name;
  throw missingAgent(hasUnknownOptions);
}

/** No agent named: the usage error of a command line with (`tokens`) or without other options. */
export function missingAgentError(tokens: readonly string[]): CloserError {
  return missingAgent(splitTokens(tokens).rest.length > 0);
}

function missingAgent(hasUnknownOptions: boolean): CloserError {
  return usage(
    hasUnknownOptions
      ? "name the agent before its own options"
      : "which agent? name it as closer run <agent> or with --agent <agent>",
    "closer run <agent> [options] (the agents are the folders under .agent/; see closer list)",
  );
}

function modeOf(flags: RunFlags): RunMode {
  const sources: [string, boolean][] = [
    ["--task", flags.task !== undefined],
    ["--task-file", flags.taskFile !== undefined],
    ["--issue", flags.issue !== undefined],
    ["--label/--project", flags.label !== undefined || flags.project !== undefined],
    ["--resume", flags.resume !== undefined],
  ];
  const given = sources.filter(([, present]) => present).map(([name]) => name);
  if (given.length === 0) throw usage("missing task: say what the agent should work on");
  if (given.length > 1) {
    throw usage(`${given.join(" and ")} cannot be combined: give one task source`);
  }
  if (flags.task !== undefined) return { kind: "task", text: flags.task };
  if (flags.taskFile !== undefined) return { kind: "task-file", file: flags.taskFile };
  if (flags.issue !== undefined)
    return { kind: "issue", issue: wholeNumberAtLeastOne("--issue", flags.issue) };
  if (flags.resume !== undefined) {
    return {
      kind: "resume",
      runId: flags.resume,
      reloadDefinition: flags.reloadDefinition === true,
      rebuild: flags.rebuild === true,
    };
  }
  return {
    kind: "batch",
    ...(flags.label === undefined ? {} : { label: flags.label }),
    ...(flags.project === undefined
      ? {}
      : { project: wholeNumberAtLeastOne("--project", flags.project) }),
    ...(flags.concurrency === undefined
      ? {}
      : { concurrency: wholeNumberAtLeastOne("--concurrency", flags.concurrency) }),
  };
}

function assertModeOptions(mode: RunMode, flags: RunFlags): void {
  if (flags.concurrency !== undefined && mode.kind !== "batch") {
    throw usage("--concurrency applies only to --label/--project runs");
  }
  if (mode.kind === "batch" && flags.branch !== undefined) {
    throw usage("--branch cannot be used with --label/--project: each issue gets its own branch");
  }
  if (mode.kind === "batch" && !flags.worktree) {
    throw usage(
      "--no-worktree cannot be used with --label/--project: each issue needs its own worktree",
    );
  }
  if (!flags.worktree && flags.deliver === true) {
    throw usage("--deliver needs a worktree: drop --no-worktree");
  }
  if (!flags.worktree && (flags.branch !== undefined || flags.baseBranch !== undefined)) {
    throw usage("--branch and --base-branch need a worktree; drop --no-worktree");
  }
  if (flags.reloadDefinition === true && mode.kind !== "resume") {
    throw usage(
      "--reload-definition applies only to --resume: a new run always takes the agent folder as it is",
    );
  }
  if (flags.rebuild === true && mode.kind !== "resume") {
    throw usage("--rebuild applies only to --resume: it rebuilds a resumed run's run.json");
  }
  if (mode.kind === "resume" && (flags.branch !== undefined || flags.baseBranch !== undefined)) {
    throw usage("a resumed run keeps its branch; drop --branch and --base-branch");
  }
}
