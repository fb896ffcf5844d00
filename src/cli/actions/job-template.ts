import { resolve } from "node:path";
import { readCliOverrides } from "../../definition/apply-cli-overrides.js";
import { loadAgent } from "../../definition/load-agent.js";
import { CloserError, wholeNumberAtLeastOne } from "../../errors.js";
import { resolveRepo } from "../../github/resolve-repo.js";
import type { EnqueueOptions, JobRepository, JobRunFlags } from "../../queue/index.js";
import { getRemoteUrl } from "../../workspace/git.js";

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

/** closer run's flags the jobs carry; a bad value is a usage error here, not on a worker. */
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

/** The repository of `--repo`/`--clone-url`, else of the origin remote of `--cwd`. */
export async function jobRepositoryOf(flags: JobTemplateFlags): Promise<JobRepository> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  const { owner, repo } = await resolveRepo(
    cwd,
    flags.repo === undefined ? {} : { override: flags.repo },
  );
  const cloneUrl = flags.cloneUrl ?? (await getRemoteUrl(cwd));
  if (cloneUrl === undefined) {
    throw new CloserError("usage_error", `${cwd} has no "origin" remote for workers to clone`, {
      fix: "pass --clone-url URL (what `git clone` on the worker's machine takes)",
    });
  }
  return { cloneUrl, owner, name: repo };
}

/**
 * Everything a job carries but its issue: the agent is loaded and checked in
 * `--cwd` first, so a typo fails when the command starts, not on a worker.
 */
export async function jobTemplateOf(agent: string, flags: JobTemplateFlags): Promise<JobTemplate> {
  const enqueue = enqueueOptionsOf(flags);
  const runFlags = runFlagsOf(flags);
  await loadAgent(agent, { cwd: resolve(flags.cwd ?? process.cwd()) });
  return { repository: await jobRepositoryOf(flags), agent, flags: runFlags, enqueue };
}
