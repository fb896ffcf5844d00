/**
 * Conformance of the agent-CLI backends against the real CLIs at pinned
 * versions (test/backends-real/clis.json), each driven by a scripted model on
 * loopback (test/doubles/model-server/). The task is the bundled example
 * repo's: the model declares done after a partial fix, the tests refute it,
 * it fixes the rest, and the run completes in two iterations with both
 * commits in the run's folder. A CLI that is not installed or does not start
 * here has its tests skipped with the reason in their names.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PermissionMode } from "../../src/ports/runner-config.js";
import { runCommand } from "../../src/process/shell-command.js";
import { cli } from "../cli/support/cli-repo.js";
import {
  type ModelServer,
  type ModelTurn,
  startModelServer,
} from "../doubles/model-server/model-server.js";
import { copyExampleRepo, readDemoSession } from "../example/example-repo.js";
import { codexEnv, findRealCli, opencodeEnv, type RealCli } from "./real-clis.js";

const FIRST_COMMIT = "Drop punctuation in slugify";
const SECOND_COMMIT = "Collapse whitespace runs and trim slug ends";

/** The demo session's two answers as model turns: write the file and commit through the shell, then declare. */
async function demoTurns(): Promise<ModelTurn[]> {
  return (await readDemoSession()).map((turn) => ({
    commands: [
      ...Object.entries(turn.files).map(
        ([file, content]) =>
          `printf %s '${Buffer.from(content).toString("base64")}' | base64 -d > ${file}`,
      ),
      ...turn.commands,
    ],
    answer: JSON.stringify(turn.structuredOutput),
  }));
}

async function git(cwd: string, command: string): Promise<string> {
  const result = await runCommand({ command: `git ${command}`, cwd, timeoutMs: 30_000 });
  return result.stdout.trim();
}

/** The folder of the worktree that has `branch` checked out. */
async function worktreeOf(repoDir: string, branch: string): Promise<string> {
  const entries = (await git(repoDir, "worktree list --porcelain")).split("\n\n");
  const entry = entries.find((lines) => lines.includes(`branch refs/heads/${branch}`));
  const folder = entry?.split("\n")[0]?.replace(/^worktree /, "");
  if (folder === undefined) throw new Error(`no worktree has ${branch}`);
  return folder;
}

interface RunSetup {
  readonly kind: "codex" | "opencode" | "command";
  readonly command: readonly string[];
  readonly permissionMode: PermissionMode;
  readonly worktree: boolean;
  /** With a closure review on the completion step (prompt written here). */
  readonly review?: boolean;
  /**
   * The scripted model servers on loopback: the CLI's config names them, not a `*_BASE_URL`
   * closer could read, so the agent lists them for the OS sandbox (docs/sandbox.md#widening).
   */
  readonly modelServers?: readonly string[];
  /** More places the backend may write (a command backend's own files: docs/sandbox.md#widening). */
  readonly allowWrite?: readonly string[];
}

const PENDING_ACTION = "Note the slug rules in the README";
const REVIEW_REJECTS = JSON.stringify({
  allComplete: false,
  checklist: [{ item: "slug rules documented", done: false, evidence: "README unchanged" }],
  pendingActions: [PENDING_ACTION],
});
const REVIEW_APPROVES = JSON.stringify({
  allComplete: true,
  checklist: [{ item: "slugify fixed", done: true, evidence: "npm test passes" }],
  pendingActions: [],
});
const GH_COMMAND = "gh issue close 7";

/**
 * The demo turns with a `gh` call in the first, and a closure review that
 * rejects once (the worker answers the pending action) and then approves.
 */
async function reviewTurns(): Promise<ModelTurn[]> {
  const [first, second] = await demoTurns();
  if (first === undefined || second === undefined)
    throw new Error("the demo session has two turns");
  return [
    { ...first, commands: [GH_COMMAND, ...(first.commands ?? [])] },
    second,
    { answer: REVIEW_REJECTS },
    { answer: second.answer },
    { answer: REVIEW_APPROVES },
  ];
}

const REVIEW_PROMPT = `Review whether the task is done.

Changes since {{baseline.commit}}:

{{changes.stat}}

{{changes.code}}

Checks:
{{checks}}

The worker declared:
{{declaration}}
`;

/** Runs the example agent with `setup`'s backend through `closer run`; asserts the refuted-then-fixed outcome. */
async function runExample(setup: RunSetup, env: Record<string, string>) {
  const repo = await copyExampleRepo();
  try {
    const agentFile = join(repo.dir, ".agent/example/agent.json");
    const agent = JSON.parse(await readFile(agentFile, "utf8"));
    agent.runner.backend = {
      kind: setup.kind,
      command: setup.command,
      permissionMode: setup.permissionMode,
      session: "continue",
    };
    // The scripted provider's key and settings reach the CLI only when passed (docs/backends.md#environment).
    agent.runner.env = { backend: Object.keys(env) };
    agent.runner.budgets.queryTimeoutMs = 180_000;
    agent.runner.worktree = { ...agent.runner.worktree, onSuccess: "keep" };
    const hosts = (setup.modelServers ?? []).map((url) => new URL(url).host);
    agent.runner.sandbox = {
      ...agent.runner.sandbox,
      allowedDomains: hosts,
      allowWrite: [...(setup.allowWrite ?? [])],
    };
    await writeFile(agentFile, JSON.stringify(agent, null, 2));
    if (setup.review === true) {
      const registryFile = join(repo.dir, ".agent/example/steps_registry.json");
      const registry = JSON.parse(await readFile(registryFile, "utf8"));
      registry.completionSteps["complete.issue"].closureReview = { c2: "review", c3: "issue" };
      await writeFile(registryFile, JSON.stringify(registry, null, 2));
      const promptDir = join(repo.dir, ".agent/example/prompts/steps/review/issue");
      await mkdir(promptDir, { recursive: true });
      await writeFile(join(promptDir, "f_default.md"), REVIEW_PROMPT);
    }
    await git(repo.dir, "add -A");
    await git(repo.dir, '-c user.name=test -c user.email=t@example.invalid commit -qam "agent"');
    const mainHead = await git(repo.dir, "rev-parse HEAD");
    if (setup.review === true) {
      const validated = await cli("validate", "example", "--cwd", repo.dir);
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    }
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    // closer itself runs in a folder of its own: a CLI that ignored the run's
    // folder would work there (and not in a developer's checkout).
    const closerFolder = await tempDir();
    const previousFolder = process.cwd();
    process.chdir(closerFolder);
    vi.stubEnv("PWD", closerFolder);

    const result = await cli(
      "run",
      "example",
      "--task-file",
      join(repo.dir, "TASK.md"),
      "--cwd",
      repo.dir,
      ...(setup.worktree ? ["--branch", "closer/conformance"] : ["--no-worktree"]),
      "--json",
    ).finally(() => process.chdir(previousFolder));
    expect(await readdir(closerFolder)).toEqual([]);

    const outcome = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
    const events = (await readFile(join(outcome.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const checks = events
      .filter((event) => event.type === "validator-end")
      .map((event) => `${event.validator}:${event.valid}`);
    const passing = ["git-clean:true", "tests-pass:true"];
    expect({ code: result.code, checks }, result.stderr).toEqual({
      code: 0,
      checks: [
        "git-clean:true",
        "tests-pass:false",
        ...passing,
        ...(setup.review === true ? passing : []),
      ],
    });
    expect(outcome).toMatchObject({
      success: true,
      status: "completed",
      iterations: setup.review === true ? 3 : 2,
    });

    const runFolder = setup.worktree ? await worktreeOf(repo.dir, "closer/conformance") : repo.dir;
    const runLog = await git(runFolder, "log --format=%s -3");
    expect(runLog.split("\n").slice(0, 2)).toEqual([SECOND_COMMIT, FIRST_COMMIT]);
    if (setup.worktree) {
      expect(await git(runFolder, "branch --show-current")).toBe("closer/conformance");
      expect(await git(repo.dir, "rev-parse HEAD")).toBe(mainHead);
      expect(await git(repo.dir, "branch --show-current")).toBe("main");
      expect(await readFile(join(repo.dir, "src/slugify.js"), "utf8")).toContain(
        '.replace(/ /g, "-")',
      );
    }
    return { outcome, events };
  } finally {
    await repo.cleanup();
  }
}

describe("the command backend (baseline)", () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each([false, true])(
    "refuted declaration, then fixed: completed in 2 iterations, commits in the run's folder (worktree: %s)",
    async (worktree) => {
      const turnsFile = join(await tempDir(), "turns.json");
      await writeFile(turnsFile, JSON.stringify(await demoTurns()));
      await runExample(
        {
          kind: "command",
          command: ["node", COMMAND_AGENT, turnsFile],
          permissionMode: "acceptEdits",
          worktree,
          allowWrite: [dirname(turnsFile)],
        },
        {},
      );
    },
  );
});

/**
 * The run of reviewTurns(): the `gh` call was refused and recorded, the review
 * went out in a fresh session and its rejection reached the worker's next
 * prompt, and the review's cost is in the result.
 */
function expectReviewAndGh(
  server: ModelServer,
  outcome: Record<string, unknown>,
  events: Record<string, unknown>[],
  conversationOf: (body: Record<string, unknown>) => unknown,
): void {
  const served = server.requests.map((request) => request.served);
  const reviews = served.flatMap((step, index) => (step === "answer" ? [index] : []));
  // Answers: worker, worker, review (rejects), worker, review (approves).
  expect(reviews).toHaveLength(5);
  const [, , rejectAt, workerAt, approveAt] = reviews as [number, number, number, number, number];
  for (const at of [rejectAt, approveAt]) {
    // A fresh session: none of the worker's tool calls or prompts.
    const conversation = JSON.stringify(conversationOf(server.requests[at]?.body ?? {}));
    expect(conversation).not.toContain('"call_1"');
    expect(conversation).not.toContain(GH_COMMAND);
  }
  const rejectConversation = JSON.stringify(conversationOf(server.requests[rejectAt]?.body ?? {}));
  expect(rejectConversation).toContain("Review whether the task is done");
  // The worker's next prompt names the pending action, in the worker's session.
  const workerConversation = JSON.stringify(conversationOf(server.requests[workerAt]?.body ?? {}));
  expect(workerConversation).toContain(PENDING_ACTION);
  expect(workerConversation).toContain('"call_1"');
  expect(outcome).toHaveProperty("reviewCostUsd");
  expect(events.filter((event) => event.type === "closure-review")).toHaveLength(2);
  const attempts = events.filter((event) => event.type === "boundary-attempt");
  expect(attempts.map((event) => String(event.command))).toEqual([
    expect.stringContaining(GH_COMMAND),
  ]);
  expect(served).toContain(`tool:${GH_COMMAND}`);
}

/** Plays the model turns itself: runs turn N's commands in its folder and prints the answer. */
const COMMAND_AGENT = join(import.meta.dirname, "command-agent.mjs");

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "closer-conformance-"));
  tempDirs.push(dir);
  return dir;
}

const codex = await findRealCli("codex");
const opencode = await findRealCli("opencode");

function title(cli: RealCli): string {
  return cli.ok ? `${cli.name} ${cli.version}` : `${cli.name} (skipped: ${cli.reason})`;
}

describe.skipIf(!codex.ok)(title(codex), () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    { permissionMode: "acceptEdits" as const, worktree: false, review: true },
    { permissionMode: "acceptEdits" as const, worktree: true, review: false },
    { permissionMode: "bypassPermissions" as const, worktree: false, review: false },
  ])(
    "refuted declaration, then fixed: completed, commits in the run's folder ($permissionMode, worktree: $worktree, review and gh: $review)",
    async ({ permissionMode, worktree, review }) => {
      if (!codex.ok) return;
      server.script(review ? await reviewTurns() : await demoTurns());
      server.requests.length = 0;
      const env = await codexEnv(await tempDir(), server.baseUrl);
      const { outcome, events } = await runExample(
        {
          ...{ kind: "codex", command: [codex.path], permissionMode, worktree, review },
          modelServers: [server.baseUrl],
        },
        env,
      );
      expect(server.requests.map((request) => request.served)).not.toContain("exhausted");
      if (review) {
        expectReviewAndGh(server, outcome, events, (body) => body.input);
        return;
      }
      expect(server.requests).toHaveLength(6);
      // The step's schema reaches the model as the Responses API's json_schema format.
      const text = server.requests[0]?.body.text as { format?: { type?: string } } | undefined;
      const format = text?.format;
      expect(format?.type).toBe("json_schema");
      // The second iteration resumed the thread: it carries the first turn's tool calls.
      expect(JSON.stringify(server.requests[3]?.body.input)).toContain('"call_1"');
      expect(outcome.costUsd).toBe(0);
    },
  );
});

describe.skipIf(!opencode.ok)(title(opencode), () => {
  let server: ModelServer;
  let titles: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
    titles = await startModelServer({ fixedAnswer: "Conformance" });
  });
  afterAll(async () => {
    await server.close();
    await titles.close();
  });
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    { permissionMode: "bypassPermissions" as const, worktree: false, review: true },
    { permissionMode: "acceptEdits" as const, worktree: true, review: false },
  ])(
    "refuted declaration, then fixed: completed, commits in the run's folder ($permissionMode, worktree: $worktree, review and gh: $review)",
    async ({ permissionMode, worktree, review }) => {
      if (!opencode.ok) return;
      server.script(review ? await reviewTurns() : await demoTurns());
      server.requests.length = 0;
      const env = await opencodeEnv(await tempDir(), server.baseUrl, titles.baseUrl);
      const { outcome, events } = await runExample(
        {
          ...{ kind: "opencode", command: [opencode.path], permissionMode, worktree, review },
          // opencode installs its provider's package from the registry at run time, through npm's cache.
          modelServers: [server.baseUrl, titles.baseUrl, "https://registry.npmjs.org"],
          allowWrite: ["~/.npm"],
        },
        env,
      );
      expect(server.requests.map((request) => request.served)).not.toContain("exhausted");
      if (review) {
        expectReviewAndGh(server, outcome, events, (body) => body.messages);
        return;
      }
      expect(server.requests).toHaveLength(6);
      // The second iteration continued the session: it carries the first turn's tool calls.
      expect(JSON.stringify(server.requests[3]?.body.messages)).toContain('"call_1"');
    },
  );
});
