import { resolve } from "node:path";
import { CloserError, wholeNumberAtLeastOne } from "../../errors.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import {
  describeJobWork,
  enqueueJobs,
  type JobWork,
  openQueue,
  type QueueJobData,
  reachableRedis,
} from "../../queue/index.js";
import { githubClientFor } from "../../run/github-client-for.js";
import { readTaskFile } from "../../run/task-file.js";
import { exitCodeAfterError } from "./error-exit.js";
import { type AgentParameterTokens, agentArgsReader, readJobPieces } from "./job-pieces.js";
import { enqueueOptionsOf, runFlagsOf, withAgentArgs } from "./job-template.js";

/** `closer enqueue`'s options as commander parses them. */
export interface EnqueueFlags {
  readonly issue?: readonly string[];
  readonly label?: string;
  readonly project?: string;
  readonly taskFile?: string;
  readonly redis?: string;
  readonly priority?: string;
  readonly attempts?: string;
  readonly repo?: string;
  readonly cloneUrl?: string;
  readonly cwd?: string;
  readonly maxIterations?: string;
  readonly backend?: string;
  readonly model?: string;
  readonly sandbox?: string;
  readonly baseBranch?: string;
  readonly json?: boolean;
}

const USAGE = "closer enqueue <agent> --issue N … | --label L [--project N] | --task-file F";

/** Everything `closer enqueue` does; returns the exit code. */
export async function enqueueFromCommandLine(
  agentName: string,
  flags: EnqueueFlags,
  parameters: AgentParameterTokens = { parameterTokens: [], options: [] },
): Promise<number> {
  try {
    assertSources(flags);
    const options = enqueueOptionsOf(flags);
    // A bad --backend or --sandbox is left to the worker.
    const runFlags = runFlagsOf(flags);
    const cwd = resolve(flags.cwd ?? process.cwd());
    const connection = await reachableRedis(flags.redis, process.env);
    // The agent's own parameters are checked as soon as the agent is read, before what else is missing.
    const supplied = flags.taskFile === undefined ? ["issue"] : [];
    const readArgs = agentArgsReader(parameters, "closer enqueue", supplied);
    const { agent, repository, args } = await readJobPieces(agentName, cwd, flags, readArgs);
    const works = await worksOf(flags, {
      agent,
      cwd,
      repo: `${repository.owner}/${repository.name}`,
    });
    const jobFlags = withAgentArgs(runFlags, args);
    const jobs = works.map(
      (work): QueueJobData => ({ version: 1, repository, agent: agentName, work, flags: jobFlags }),
    );
    const queue = await openQueue(connection);
    try {
      const added = await enqueueJobs(queue, jobs, options);
      const lines = added.map((job, index) => {
        const work = describeJobWork(jobs[index] as QueueJobData);
        return job.duplicate
          ? `job ${job.jobId}: ${work} is already queued or running; not queued again`
          : `job ${job.jobId}: ${work} queued`;
      });
      process.stderr.write(
        `${lines.length === 0 ? "closer: no open issue matches" : lines.join("\n")}\n`,
      );
      if (flags.json === true) process.stdout.write(`${JSON.stringify(added)}\n`);
    } finally {
      await queue.close();
    }
    return 0;
  } catch (error) {
    return exitCodeAfterError(error);
  }
}

function assertSources(flags: EnqueueFlags): void {
  const given = [
    flags.issue === undefined ? undefined : "--issue",
    flags.label === undefined && flags.project === undefined ? undefined : "--label/--project",
    flags.taskFile === undefined ? undefined : "--task-file",
  ].filter((name) => name !== undefined);
  if (given.length === 1) return;
  throw new CloserError(
    "usage_error",
    given.length === 0
      ? "missing work: say which issues or task to queue"
      : `${given.join(" and ")} cannot be combined: give one source of work`,
    { fix: USAGE },
  );
}

async function worksOf(
  flags: EnqueueFlags,
  context: { readonly agent: ResolvedAgent; readonly cwd: string; readonly repo: string },
): Promise<JobWork[]> {
  if (flags.issue !== undefined) {
    const numbers = flags.issue.map((value) => wholeNumberAtLeastOne("--issue", value));
    return [...new Set(numbers)].map((issue) => ({ kind: "issue", issue }));
  }
  if (flags.taskFile !== undefined) {
    return [{ kind: "task", task: await readTaskFile(flags.taskFile, process.cwd()) }];
  }
  const client = await githubClientFor(
    { agent: context.agent, projectDir: context.cwd, env: process.env },
    { repo: context.repo },
  );
  const issues =
    flags.project === undefined
      ? await client.listIssues(flags.label === undefined ? {} : { label: flags.label })
      : await client.listProjectIssues({
          project: wholeNumberAtLeastOne("--project", flags.project),
          ...(flags.label === undefined ? {} : { label: flags.label }),
        });
  return issues.map((issue) => ({ kind: "issue", issue: issue.number }));
}
