/**
 * The OS sandbox of a run in its tree (docs/sandbox.md): the facts its policy
 * is made from, gathered where the run knows them.
 */
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { RunState } from "../ports/run-state.js";
import type { BackendKind, SandboxConfig } from "../ports/runner-config.js";
import { readGitLayout } from "../sandbox/git-layout.js";
import { prepareRunSandbox, SANDBOX_OFF, type SandboxState } from "../sandbox/run-sandbox.js";
import { urlHost } from "../sandbox/sandbox-policy.js";
import { removeLeftStandIns } from "../sandbox/stand-ins.js";
import { packLooseObjects } from "../workspace/git-objects.js";
import { getMainWorktreeRoot } from "../workspace/prepare-worktree.js";
import type { RunBase } from "./run-base.js";
import { backendEnvironment } from "./run-environments.js";

/** The sandbox of the run `runId` of `agent` (its definition snapshot) in the tree at `tree`. */
export async function sandboxForRun(
  base: RunBase,
  agent: ResolvedAgent,
  run: { readonly runId: string; readonly tree: string; readonly checksRoom?: readonly string[] },
): Promise<SandboxState> {
  const { runner } = agent;
  // The place is read from git; a run without the sandbox asks git nothing for it.
  if (runner.sandbox.mode === "off") return SANDBOX_OFF;
  // What the repository holds goes where the sandbox holds it (docs/sandbox.md#git); a repository
  // git cannot pack is left as it is.
  await packLooseObjects(run.tree).catch(() => undefined);
  return prepareRunSandbox({
    config: runner.sandbox,
    runId: run.runId,
    // The project's agent.json, the file to change: `agent` is read from the run's snapshot of it.
    agentFile: base.agent.files.agentJson,
    place: {
      tree: run.tree,
      ...(await gitLayoutOf(run.tree)),
      runsDir: base.runsDir,
      ...(await worktreesDirOf(base.projectDir, runner.worktree.root)),
      ...(run.checksRoom === undefined ? {} : { checksRoom: run.checksRoom }),
      agentDirs: [
        ...new Set([
          base.agent.dir,
          agent.dir,
          join(run.tree, relative(base.projectDir, base.agent.dir)),
        ]),
      ],
      home: base.env.HOME ?? homedir(),
      backendKinds: backendKindsOf(agent),
      // The run's state folders of every backend kind it uses, the reviews' too.
      backendEnv: {
        ...backendEnvironment(base.env, agent, runner.backend, base.credentials),
        ...base.credentials?.stateFolders,
      },
      config: withProviderHosts(runner.sandbox, base.credentials?.providerUrls ?? []),
      passGithubToken: runner.backend.passGithubToken === true,
      closerHosts: base.credentials?.proxyHosts ?? [],
    },
  });
}

/**
 * A resumed run whose closer was killed while a sandboxed process ran (run.json still says
 * `running`) may have left the sandbox's stand-ins in the tree (docs/sandbox.md#how-it-runs):
 * they are removed before the run goes on, with a warning naming them.
 */
export async function standInsLeftBy(
  resumed: RunState | undefined,
  tree: string,
): Promise<string[]> {
  if (resumed?.status !== "running" || resumed.sandbox?.on !== true) return [];
  // Where the killed closer worked is not recorded: its own folder, or the tree's top (--cwd).
  const folders = [...new Set([tree, process.cwd()])];
  const removed: string[] = [];
  for (const folder of folders) removed.push(...(await removeLeftStandIns(tree, folder)));
  if (removed.length === 0) return [];
  return [
    `removed the OS sandbox's empty stand-ins the killed run left in the tree: ${removed.join(", ")}`,
  ];
}

/**
 * The sandbox's settings with the model endpoints the backend CLIs' own configuration names
 * allowed to the backend's processes, as `host:port` (docs/backends.md#provider-settings).
 */
function withProviderHosts(config: SandboxConfig, urls: readonly string[]): SandboxConfig {
  const hosts = urls.flatMap((url) => urlHost(url) ?? []);
  if (hosts.length === 0) return config;
  return { ...config, allowedDomains: [...new Set([...config.allowedDomains, ...hosts])] };
}

async function gitLayoutOf(tree: string) {
  const git = await readGitLayout(tree);
  return git === undefined ? {} : { git };
}

/** The folder of closer's worktrees in the repository that holds `cwd`, if there is one. */
async function worktreesDirOf(cwd: string, root: string) {
  const main = await getMainWorktreeRoot(cwd).catch(() => undefined);
  return main === undefined ? {} : { worktreesDir: resolve(main, root) };
}

/** The run's backend kind and those of its steps' closing reviews. */
export function backendKindsOf(agent: ResolvedAgent): BackendKind[] {
  const kinds = [agent.runner.backend.kind];
  for (const step of Object.values(agent.registry.completionSteps)) {
    const reviewer = step.closureReview?.backend;
    if (reviewer !== undefined) kinds.push(reviewer.kind);
  }
  return [...new Set(kinds)];
}
