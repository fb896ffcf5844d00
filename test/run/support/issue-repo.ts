import { mkdtemp, readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { loadAgent } from "../../../src/definition/load-agent.js";
import type { ResolvedAgent } from "../../../src/ports/agent.js";
import type { RunEvent, RunEventOf, RunEventType } from "../../../src/ports/events.js";
import { runCommand } from "../../../src/process/shell-command.js";
import {
  type AgentFixture,
  type FixtureRepo,
  makeFixtureRepo,
  makeTestClock,
  type ScriptedTurn,
} from "../../../src/testing/index.js";
import {
  type FakeGithub,
  type FakeIssueSeed,
  startFakeGithub,
} from "../../doubles/fake-github/index.js";
import { makeTestAgent, type TestAgentOptions } from "../../support/test-agent.js";

/** The repository the fake GitHub serves, and the token it wants. */
export const REPO = "acme/widgets";
export const TOKEN = "ghp_fixtureToken0123456789abcdef";

/** A project whose check (`node check.mjs`) fails while a BROKEN file exists. */
export const PROJECT: Readonly<Record<string, string>> = {
  "README.md": "# widgets\n",
  ".gitignore": "node_modules/\n",
  "check.mjs": [
    'import { existsSync } from "node:fs";',
    'if (existsSync("BROKEN")) {',
    '  console.error("not ok 1 - widgets work");',
    "  process.exit(1);",
    "}",
    'console.log("ok 1 - widgets work");',
    "",
  ].join("\n"),
};

export interface IssueAgentOptions extends TestAgentOptions {
  /** Replaces fields of `runner.worktree` (default: merge on success). */
  readonly worktree?: Record<string, unknown>;
  /** Replaces fields of `runner.github` (labels, close action, comments). */
  readonly github?: Record<string, unknown>;
  /** The agent's parameters; default an `--issue` number. */
  readonly parameters?: Record<string, unknown>;
  /** The template of the initial step. */
  readonly initialPrompt?: string;
}

/** An issue agent: initial.issue → continuation.issue, complete when the tree is clean and the check passes. */
export function makeIssueAgent(options: IssueAgentOptions = {}): AgentFixture {
  const { worktree, github, parameters, initialPrompt, ...parts } = options;
  return makeTestAgent({
    name: "fixer",
    ...parts,
    c3: "issue",
    agent: {
      description: "fixes issues",
      parameters: parameters ?? {
        issue: { type: "number", flag: "--issue", description: "the issue" },
      },
      ...parts.agent,
    },
    runner: {
      worktree: { onSuccess: "merge", ...worktree },
      github: {
        labels: { add: ["done"], remove: ["ready"] },
        closeAction: "label-and-close",
        completionComment: true,
        failureComment: true,
        ...github,
      },
      ...parts.runner,
    },
    patterns: {
      "check-failed": { description: "the check fails", params: ["errorOutput"] },
      ...parts.patterns,
    },
    validators: {
      "check-passes": {
        type: "command",
        command: "node check.mjs",
        successWhen: "exitCode:0",
        failurePattern: "check-failed",
        extractParams: { errorOutput: "stderr" },
      },
      ...parts.validators,
    },
    conditions: parts.conditions ?? ["git-clean", "check-passes"],
    prompts: {
      "steps/initial/issue/f_default.md":
        initialPrompt ?? "# {{task.title}}\n\n{{task.body}}\n\nIssue {{issue}}.\n",
      ...parts.prompts,
    },
  });
}

/** A repository holding the project and the agent, with a bare repository as its `origin`. */
export interface IssueRepo {
  readonly repo: FixtureRepo;
  readonly remoteDir: string;
  readonly agent: ResolvedAgent;
  cleanup(): Promise<void>;
}

export async function makeIssueRepo(options: IssueAgentOptions = {}): Promise<IssueRepo> {
  const repo = await makeFixtureRepo({ files: PROJECT, agents: [makeIssueAgent(options)] });
  const remoteDir = await realpath(await mkdtemp(join(tmpdir(), "closer-remote-")));
  await git(remoteDir, "init", "--quiet", "--bare", "--initial-branch=main");
  await git(repo.dir, "remote", "add", "origin", remoteDir);
  await git(repo.dir, "push", "--quiet", "origin", "main");
  return {
    repo,
    remoteDir,
    agent: await loadAgent("fixer", { cwd: repo.dir }),
    cleanup: async () => {
      await repo.cleanup();
      await rm(remoteDir, { recursive: true, force: true });
    },
  };
}

/** The events of a run, by type. */
export function eventLog() {
  const events: RunEvent[] = [];
  return {
    onEvent: (event: RunEvent) => {
      events.push(event);
    },
    of: <T extends RunEventType>(type: T) =>
      events.filter((event): event is RunEventOf<T> => event.type === type),
  };
}

/**
 * An issue-run fixture per test: the repository of `makeIssueRepo` and a fake GitHub serving
 * `issues`, both closed after each test of the suite that calls this.
 */
export function useIssueRun(issues: readonly FakeIssueSeed[]) {
  let current: { setup: IssueRepo; github: FakeGithub } | undefined;
  afterEach(async () => {
    await current?.github.close();
    await current?.setup.cleanup();
    current = undefined;
  });
  return async (options: IssueAgentOptions = {}) => {
    const setup = await makeIssueRepo(options);
    const github = await startFakeGithub({ token: TOKEN, issues });
    current = { setup, github };
    return { setup, github, options: baseOptions(setup, github.url) };
  };
}

/** Runs git, failing the test on a non-zero exit. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await runCommand({ command: ["git", ...args], cwd, timeoutMs: 30_000 });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

export const DONE = {
  status: "completed",
  summary: "made the widgets work",
  next_action: { action: "complete", reason: "the check passes" },
};

/** The model writes a file and commits it, then declares done. */
export function doneTurn(file: string, summary = DONE.summary): ScriptedTurn {
  return {
    files: { [file]: `${file}\n` },
    commands: [`git add --all && git commit --quiet -m "add ${file}"`],
    structuredOutput: { ...DONE, summary },
    costUsd: 0.01,
  };
}

/** The model breaks the check, commits, and declares done anyway. */
export const BROKEN_TURN: ScriptedTurn = {
  files: { BROKEN: "yes\n" },
  commands: ["git add --all && git commit --quiet -m broken"],
  structuredOutput: DONE,
  costUsd: 0.01,
};

/** What closer's environment looks like to a run against the fake GitHub. */
export function githubEnv(apiUrl: string): Record<string, string> {
  return { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: apiUrl, PATH: process.env.PATH ?? "" };
}

/** Common options of a library-level run in the fixture. */
export function baseOptions(setup: IssueRepo, apiUrl: string) {
  return {
    agent: setup.agent,
    cwd: setup.repo.dir,
    env: githubEnv(apiUrl),
    repo: REPO,
    clock: makeTestClock({ randomId: randomIds() }),
  };
}

function randomIds(): () => string {
  let count = 0;
  return () => {
    count += 1;
    return `${Math.random().toString(36).slice(2, 8)}${count}`;
  };
}

/** Every file under a folder, with its text. */
export async function readTree(folder: string): Promise<{ path: string; text: string }[]> {
  const files: { path: string; text: string }[] = [];
  for (const name of await readdir(folder)) {
    const path = join(folder, name);
    if ((await stat(path)).isDirectory()) files.push(...(await readTree(path)));
    else files.push({ path, text: await readFile(path, "utf8") });
  }
  return files;
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
