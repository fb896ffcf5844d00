import { resolve } from "node:path";
import { readCliOverrides } from "../../definition/apply-cli-overrides.js";
import { wholeNumberAtLeastOne } from "../../errors.js";
import type { EnqueueOptions, JobRepository, JobRunFlags } from "../../queue/index.js";
import { type AgentParameterTokens, agentArgsReader, readJobPieces } from "./job-pieces.js";

/** The options `closer watch` and `closer serve` share with `closer enqueue`: what each job carries. */
export interface JobTemplateFlags {
  readonly repo?: string;
  readonly cloneUrl?: string;
  readonly cwd?: string;
  readonly priority?: string;
  readonly attempts?: string;
  readonly maxIterations?: string;
  readonly backend?: string;
  readonly model?: string;
  readonly sandbox?: string;
  readonly baseBranch?: string;
}

/** The jobs' repository, agent and flags, before any issue is known. */
export interface JobTemplate {
  readonly repository: JobRepository;
  readonly agent: string;
  readonly flags: JobRunFlags;
  readonly enqueue: EnqueueOptions;
}

/** The job options read from the command line, checked before Redis is reached. */
export function enqueueOptionsOf(flags: JobTemplateFlags): EnqueueOptions {
  return {
    ...(flags.priority === undefined
      ? {}
      : { priority: wholeNumberAtLeastOne("--priority", flags.priority) }),
    ...(flags.attempts === undefined
      ? {}
      : { attempts: wholeNumberAtLeastOne("--attempts", flags.attempts) }),
  };
}

/**
 * closer run's flags the jobs carry; a bad `--max-iterations`, `--backend` or `--sandbox` is a
 * usage error here, not on a worker.
 */
export function runFlagsOf(flags: JobTemplateFlags): JobRunFlags {
  const read = readCliOverrides({
    ...(flags.maxIterations === undefined ? {} : { maxIterations: flags.maxIterations }),
    ...(flags.backend === undefined ? {} : { backend: flags.backend }),
    ...(flags.sandbox === undefined ? {} : { sandbox: flags.sandbox }),
  });
  return {
    ...(read.maxIterations === undefined ? {} : { maxIterations: read.maxIterations }),
    ...(flags.backend === undefined ? {} : { backend: flags.backend }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.sandbox === undefined ? {} : { sandbox: flags.sandbox }),
    ...(flags.baseBranch === undefined ? {} : { baseBranch: flags.baseBranch }),
  };
}

/** `runFlags` with the agent's own parameters as `args`, when any is given (docs/queue.md#job-data). */
export function withAgentArgs(
  runFlags: JobRunFlags,
  args: Readonly<Record<string, unknown>>,
): JobRunFlags {
  return Object.keys(args).length === 0 ? runFlags : { ...runFlags, args };
}

/**
 * Everything a job carries but its issue, read as `closer enqueue` reads it: the agent is loaded
 * and checked in `--cwd` first, with its own parameter flags from `parameters` (typed, carried as
 * `flags.args`), so a typo fails when `command` starts, not on a worker; then the repository.
 */
export async function jobTemplateOf(
  agent: string,
  flags: JobTemplateFlags,
  parameters: AgentParameterTokens,
  command: string,
): Promise<JobTemplate> {
  const enqueue = enqueueOptionsOf(flags);
  const runFlags = runFlagsOf(flags);
  const cwd = resolve(flags.cwd ?? process.cwd());
  const readArgs = agentArgsReader(parameters, command, ["issue"]);
  const { repository, args } = await readJobPieces(agent, cwd, flags, readArgs);
  return { repository, agent, flags: withAgentArgs(runFlags, args), enqueue };
}
