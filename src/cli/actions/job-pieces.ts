import { loadAgent } from "../../definition/load-agent.js";
import { CloserError, isCloserError } from "../../errors.js";
import { parseRepoUrl, resolveRepo } from "../../github/resolve-repo.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import type { JobRepository } from "../../queue/index.js";
import { getRemoteUrl } from "../../workspace/git.js";
import { type OptionHelp, parseParameterFlags } from "../run/parameter-flags.js";

/** What every job of one `closer enqueue`, `watch` or `serve` carries besides its work (docs/queue.md#job-data). */
export interface JobPieces<T> {
  readonly agent: ResolvedAgent;
  readonly repository: JobRepository;
  /** What `readAgent` made of the agent (its parameters as the command line gives them). */
  readonly args: T;
}

/** What commander leaves for the agent's parameters, and closer's options for their help. */
export interface AgentParameterTokens {
  readonly parameterTokens: readonly string[];
  readonly options: readonly OptionHelp[];
}

/**
 * Reads the agent's own parameters (docs/cli.md#agent-parameters) from `parameters`, typed, for
 * `readJobPieces`: they travel in each job as `flags.args` (docs/queue.md#job-data). `supplied`:
 * the parameters the job's work gives itself (`issue` for an issue).
 */
export function agentArgsReader(
  parameters: AgentParameterTokens,
  command: string,
  supplied: readonly string[],
): (agent: ResolvedAgent) => Record<string, unknown> {
  return (agent) =>
    parseParameterFlags({
      tokens: parameters.parameterTokens,
      agent,
      closerValues: {},
      supplied,
      closerOptions: parameters.options,
      command,
    });
}

/** One piece a job lacks, and the flag that supplies it. */
interface MissingPiece {
  readonly what: string;
  readonly fix: string;
}

/**
 * The agent and the repository of the jobs, from the flags and the folder `cwd`: the clone URL
 * from `--clone-url`, else the `origin` remote; owner/name from `--repo`, else the `origin`
 * remote, else a GitHub-like `--clone-url`. `readAgent` checks the agent once it is read (its
 * errors come first); then every piece that is missing is named in one `usage_error`, each with
 * the flag that supplies it (docs/queue.md#enqueue).
 */
export async function readJobPieces<T>(
  agentName: string,
  cwd: string,
  flags: { readonly repo?: string; readonly cloneUrl?: string },
  readAgent: (agent: ResolvedAgent) => T,
): Promise<JobPieces<T>> {
  const missing: MissingPiece[] = [];
  const agent = await loadAgent(agentName, { cwd }).catch((error: unknown) => {
    // Only an agent that is not there is a missing piece; a broken one is its own error.
    const absent = isCloserError(error) && error.message.startsWith(`agent "${agentName}"`);
    if (!absent || error.code !== "not_found") throw error;
    missing.push({
      what: `the agent: ${error.message}`,
      fix: `--cwd DIR, the project folder whose .agent/${agentName} the workers run (or \`closer init ${agentName}\` to make it)`,
    });
    return undefined;
  });
  const args = agent === undefined ? undefined : { value: readAgent(agent) };
  const origin = await getRemoteUrl(cwd);
  const cloneUrl = flags.cloneUrl ?? origin;
  const name = await repositoryName(cwd, flags, origin);
  if (cloneUrl === undefined && name === undefined) {
    // One flag can supply both: a GitHub-like clone URL names the repository too.
    missing.push({
      what: `what workers clone and the GitHub repository (owner/name): ${cwd} has no "origin" remote`,
      fix: "--clone-url URL (what `git clone` on a worker's machine takes): a GitHub-like one (https://github.com/owner/name.git, git@github.com:owner/name.git) gives owner/name too, any other (a path, a mirror) needs --repo owner/name beside it",
    });
  } else if (cloneUrl === undefined) {
    missing.push({
      what: `what workers clone: ${cwd} has no "origin" remote`,
      fix: "--clone-url URL (what `git clone` on a worker's machine takes)",
    });
  } else if (name === undefined) {
    const unread =
      origin !== undefined
        ? `: the "origin" remote's URL names none`
        : ": --clone-url is not a GitHub-like URL (https://github.com/owner/name.git, git@github.com:owner/name.git)";
    missing.push({ what: `the GitHub repository (owner/name)${unread}`, fix: "--repo owner/name" });
  }
  if (args === undefined || agent === undefined || cloneUrl === undefined || name === undefined) {
    throw new CloserError(
      "usage_error",
      `cannot queue: a job needs ${missing.map((piece) => piece.what).join("; and ")}`,
      { fix: `pass ${missing.map((piece) => piece.fix).join("; and ")}` },
    );
  }
  return {
    agent,
    repository: { cloneUrl, owner: name.owner, name: name.repo },
    args: args.value,
  };
}

/** owner/name from `--repo`, else the origin remote, else `--clone-url`; nothing when none gives it. */
async function repositoryName(
  cwd: string,
  flags: { readonly repo?: string; readonly cloneUrl?: string },
  origin: string | undefined,
): Promise<{ readonly owner: string; readonly repo: string } | undefined> {
  if (flags.repo !== undefined) return resolveRepo(cwd, { override: flags.repo });
  const fromOrigin = origin === undefined ? undefined : parseRepoUrl(origin);
  if (fromOrigin !== undefined) return fromOrigin;
  return flags.cloneUrl === undefined ? undefined : parseRepoUrl(flags.cloneUrl);
}
