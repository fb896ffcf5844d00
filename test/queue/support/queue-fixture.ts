import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FixtureRepo, makeFixtureRepo, writeAgent } from "../../../src/testing/index.js";
import type { FakeGithub } from "../../doubles/fake-github/index.js";
import { makeIssueAgent, PROJECT } from "../../run/support/issue-repo.js";
import { type CloserProcess, startCloser } from "./closer-process.js";

/**
 * The model, for the `command` backend: writes work.txt and commits it, then
 * declares done. With a gate name, it first notes its pid in
 * `<gates>/<name>.started` and waits until `<gates>/<name>.open` exists, so a
 * test can stop a worker while its run is in the middle of a query. Each query it answers is
 * noted, by branch, in `<gates>/queries.log`.
 */
function agentProgram(gates: string): string {
  return `import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const gate = process.argv[2];
for await (const _chunk of process.stdin) {}
if (gate !== undefined) {
  writeFileSync(join(${JSON.stringify(gates)}, gate + ".started"), String(process.pid));
  while (!existsSync(join(${JSON.stringify(gates)}, gate + ".open"))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
// The branch in the file: each issue's commit differs, also on a base that holds another's.
const branch = execFileSync("git", ["rev-parse", "--abbrev-ref", "HEAD"]).toString().trim();
// Each query the model gets, by branch, for the tests that count them.
appendFileSync(join(${JSON.stringify(gates)}, "queries.log"), branch + "\\n");
writeFileSync("work.txt", "done on " + branch + "\\n");
execFileSync("git", ["add", "--all"]);
// Asked again after its work was committed (a run stopped during its checks), it commits nothing.
if (execFileSync("git", ["status", "--porcelain"]).toString() !== "") {
  execFileSync("git", ["commit", "--quiet", "-m", "work"]);
}
console.log(JSON.stringify({
  status: "completed",
  summary: "wrote work.txt",
  next_action: { action: "complete", reason: "done" },
}));
`;
}

/** A queue agent's checks: the tree is clean and work.txt exists; a text-only model. */
export const WORK_EXISTS = {
  textOnly: true,
  patterns: {
    "work-missing": {
      description: "work.txt is missing",
      edition: "failed",
      adaptation: "work-missing",
      params: [],
    },
  },
  validators: {
    "work-exists": {
      type: "file",
      path: "work.txt",
      failurePattern: "work-missing",
      extractParams: {},
    },
  },
  conditions: ["git-clean", "work-exists"],
};

/** The agents of the origin repository: `good` at once, `gate-<name>` behind a gate. */
export const GATES = ["kill", "term"] as const;

/** A queue agent; `worktree` replaces its `runner.worktree` (default: each branch kept). */
export function queueAgent(
  name: string,
  gate?: string,
  worktree: Record<string, unknown> = { onSuccess: "keep" },
) {
  return makeIssueAgent({
    name,
    runner: {
      backend: {
        kind: "command",
        command: ["node", "agent-program.mjs", ...(gate === undefined ? [] : [gate])],
      },
      maxIterations: 3,
    },
    parameters: {
      issue: { type: "number", description: "the issue" },
      note: { type: "string", default: "none", description: "a note the job carries" },
    },
    // Each issue's branch is kept by default: the runs of one clone never merge into each other.
    worktree,
    ...WORK_EXISTS,
  });
}

/** The origin repository the workers clone, the gates folder, and a home with a git identity. */
export interface QueueFixture {
  readonly origin: FixtureRepo;
  readonly gates: string;
  readonly home: string;
  /** A fresh folder for one worker's clones (or shared by two). */
  repoDir(): Promise<string>;
  openGate(name: string): Promise<void>;
  /** The pid the gated model wrote once its query began, when it has. */
  startedPid(name: string): Promise<number | undefined>;
  /** The queries the model answered so far, each as the branch it worked on. */
  queries(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function makeQueueFixture(): Promise<QueueFixture> {
  const scratch = await realpath(await mkdtemp(join(tmpdir(), "closer-queue-")));
  const gates = join(scratch, "gates");
  const home = join(scratch, "home");
  await mkdir(gates);
  await mkdir(home);
  await writeFile(
    join(home, ".gitconfig"),
    "[user]\n\tname = closer worker\n\temail = worker@closer.invalid\n[commit]\n\tgpgsign = false\n",
  );
  const origin = await makeFixtureRepo({ files: { ...PROJECT, ".gitignore": ".closer/\n" } });
  await writeAgent(origin.dir, queueAgent("good"));
  for (const gate of GATES) await writeAgent(origin.dir, queueAgent(`gate-${gate}`, gate));
  await writeFile(join(origin.dir, "agent-program.mjs"), agentProgram(gates));
  await origin.commitAll("agents");
  let folders = 0;
  return {
    origin,
    gates,
    home,
    repoDir: async () => join(scratch, `worker-${++folders}`),
    openGate: (name) => writeFile(join(gates, `${name}.open`), ""),
    startedPid: async (name) => {
      const file = join(gates, `${name}.started`);
      return existsSync(file) ? Number(await readFile(file, "utf8")) : undefined;
    },
    queries: async () => {
      const file = join(gates, "queries.log");
      if (!existsSync(file)) return [];
      return (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
    },
    cleanup: async () => {
      await origin.cleanup();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** A `closer worker` process. */
export type WorkerProcess = CloserProcess;

/** Starts `closer worker` as its own process, the way a user on another machine would. */
export function startWorker(options: {
  readonly redisUrl: string;
  readonly repoDir: string;
  readonly github: FakeGithub;
  readonly home: string;
  readonly stalledIntervalMs: number;
}): WorkerProcess {
  const args = [
    "worker",
    "--redis",
    options.redisUrl,
    "--repo-dir",
    options.repoDir,
    "--stalled-interval",
    String(options.stalledIntervalMs),
  ];
  return startCloser(args, options);
}

/** Waits until `test` holds, polling; fails with `what` after a generous timeout. */
export async function waitFor<T>(
  what: string,
  test: () => Promise<T | undefined | false>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await test();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
