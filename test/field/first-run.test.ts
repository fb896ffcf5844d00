import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxSupport } from "../../src/sandbox/sandbox-runtime.js";
import {
  type AnthropicApi,
  type AnthropicTurn,
  bashCall,
  startAnthropicApi,
  writeCall,
} from "../doubles/anthropic-api/anthropic-api.js";
import { findRealClaudeCode } from "../doubles/anthropic-api/real-claude-code.js";
import { type Finished, runProgram } from "../support/run-program.js";
import { FIELD_PROJECTS, type FieldProject } from "./support/field-projects.js";

/**
 * A new user's first hour, end to end: a fresh clone of a project with no dependencies
 * installed, a fresh HOME with no backend state folder, the git identity only in the
 * environment, `closer init` with no name and no flags, the default sandbox, and the real
 * Claude Code binary driven by a scripted model on loopback that makes the real fix
 * (docs/cli.md#init, docs/definition.md#setup, docs/sandbox.md).
 */

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

const executablePath = findRealClaudeCode();
const support = await sandboxSupport();
const onPath = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

function skipReason(project: FieldProject): string | undefined {
  if (executablePath === undefined)
    return "the real Claude Code is not installed (@anthropic-ai/claude-agent-sdk-<platform>)";
  if (!support.works) return `the OS sandbox cannot run here (${support.reason})`;
  if (!onPath(project.tool)) return `${project.tool} is not on PATH`;
  return undefined;
}

/** How this machine reaches the network (its proxies and certificate authorities): a user's shell has them. */
function networkSettings(): Record<string, string> {
  const names = [
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
  ];
  return Object.fromEntries(
    names.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  );
}

/** Where this machine's toolchains live, which a fresh HOME would otherwise hide (rustup, pyenv). */
function toolchainLocations(): Record<string, string> {
  const home = homedir();
  const found: Record<string, string> = {};
  for (const [name, folder] of [
    ["RUSTUP_HOME", ".rustup"],
    ["CARGO_HOME", ".cargo"],
    ["PYENV_ROOT", ".pyenv"],
  ] as const) {
    const place = process.env[name] ?? join(home, folder);
    if (existsSync(place)) found[name] = place;
  }
  return found;
}

/** A program run with exactly `env`, as a user's shell would run it. */
const run = (command: string, args: readonly string[], cwd: string, env: Record<string, string>) =>
  runProgram(command, args, { cwd, env });

const closer = (args: readonly string[], cwd: string, env: Record<string, string>) =>
  run(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], cwd, env);

interface Trial {
  readonly clone: string;
  readonly env: Record<string, string>;
  readonly init: Finished;
}

let scratch: string | undefined;
let api: AnthropicApi | undefined;
afterEach(async () => {
  await api?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  api = scratch = undefined;
});

/** The project pushed upstream, cloned fresh, and `closer init` run in the clone. */
async function startTrial(project: FieldProject, turns: (clone: string) => AnthropicTurn[]) {
  scratch = await realpath(await mkdtemp(join(tmpdir(), "closer-field-")));
  const upstream = join(scratch, "upstream");
  const clone = join(scratch, "clone");
  const home = join(scratch, "home");
  await mkdir(home);
  for (const [path, content] of Object.entries(project.files)) {
    await mkdir(dirname(join(upstream, path)), { recursive: true });
    await writeFile(join(upstream, path), content);
  }
  const author = ["-c", "user.name=Upstream", "-c", "user.email=upstream@example.com"];
  const git = (cwd: string, ...args: string[]) => run("git", [...author, ...args], cwd, gitEnv);
  const gitEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
  await git(upstream, "init", "--quiet", "--initial-branch=main");
  await git(upstream, "add", "--all");
  await git(upstream, "commit", "--quiet", "-m", "The project");
  expect((await git(scratch, "clone", "--quiet", upstream, clone)).code).toBe(0);

  api = await startAnthropicApi({ usage: { inputTokens: 1000, outputTokens: 50 } });
  api.script(turns(clone));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ...networkSettings(),
    ...toolchainLocations(),
    GIT_AUTHOR_NAME: "Field Tester",
    GIT_AUTHOR_EMAIL: "field@example.com",
    GIT_COMMITTER_NAME: "Field Tester",
    GIT_COMMITTER_EMAIL: "field@example.com",
    ANTHROPIC_BASE_URL: api.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-scripted-0000",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  // As a new user types it: no name, no flags (the agent is `iterator`).
  const init = await closer(["init"], clone, env);
  await run("git", ["add", ".agent"], clone, env);
  await run("git", ["commit", "--quiet", "-m", "Add the iterator agent"], clone, env);
  return { clone, env, init } satisfies Trial;
}

async function runFixer(trial: Trial, project: FieldProject, ...flags: string[]) {
  const ran = await closer(
    ["run", "iterator", "--task", project.task, "--json", ...flags],
    trial.clone,
    trial.env,
  );
  const line = ran.stdout.trim().split("\n").at(-1) ?? "";
  if (!line.startsWith("{")) throw new Error(`closer exited ${ran.code}: ${ran.stderr}`);
  return { ...ran, result: JSON.parse(line) as Record<string, unknown> };
}

async function baselineTests(runDir: string): Promise<number | undefined> {
  const events = (await readFile(join(runDir, "events.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; checks?: { tests?: number }[] });
  const baseline = events.find((event) => event.type === "baseline");
  return baseline?.checks?.find((check) => check.tests !== undefined)?.tests;
}

const DECLARED = {
  status: "completed",
  summary: "Fixed the bug the task names; the tests pass.",
  next_action: { action: "complete", reason: "the work is done and committed" },
};

const REVIEWED = {
  allComplete: true,
  checklist: [{ item: "the bug is fixed", done: true, evidence: "the diff and the tests" }],
  pendingActions: [],
};

describe("A new user's first run on a real kind of project", () => {
  for (const project of FIELD_PROJECTS) {
    const skip = skipReason(project);
    describe(`${project.name}${skip === undefined ? "" : ` — skipped: ${skip}`}`, {
      skip: skip !== undefined,
      timeout: 240_000,
    }, () => {
      it("init fits the project, and the run completes in one iteration with the project's own tests passing on the delivered commit", async () => {
        const trial = await startTrial(project, (clone) => [
          {
            toolCalls: [
              writeCall(join(clone, project.fix.path), project.fix.content),
              bashCall(`git add --all && git commit --quiet -m "${project.task}"`),
            ],
            structuredOutput: DECLARED,
          },
          { structuredOutput: REVIEWED },
        ]);
        expect(trial.init.code, trial.init.stderr).toBe(0);
        expect(trial.init.stdout).toContain(project.chosenTest);

        const { code, result, stderr } = await runFixer(trial, project);

        expect(code, stderr).toBe(0);
        expect(result).toMatchObject({ success: true, status: "completed", iterations: 1 });
        expect(await baselineTests(String(result.runDir))).toBe(project.testCount);
        const state = JSON.parse(await readFile(join(String(result.runDir), "run.json"), "utf8"));
        expect(state.sandbox).toMatchObject({ on: true, refusals: 0 });
        const head = await run("git", ["rev-parse", "HEAD"], trial.clone, trial.env);
        expect(head.stdout.trim()).toBe(state.completion.commit);
        expect(await readFile(join(trial.clone, project.fix.path), "utf8")).toBe(
          project.fix.content,
        );
        const [program = "", ...args] = project.testCommand.split(" ");
        const own = await run(program, args, trial.clone, trial.env);
        expect(own.code, own.stdout + own.stderr).toBe(0);
        const status = await run("git", ["status", "--porcelain"], trial.clone, trial.env);
        expect(status.stdout).toBe("");
      });

      it("a model that declares done without changing anything does not complete", async () => {
        const trial = await startTrial(project, () => [
          { structuredOutput: DECLARED },
          { structuredOutput: DECLARED },
        ]);
        expect(trial.init.code, trial.init.stderr).toBe(0);

        const { code, result } = await runFixer(trial, project, "--max-iterations", "2");

        expect(code).toBe(1);
        expect(result).toMatchObject({ success: false, status: "max_iterations" });
        const log = await run("git", ["log", "--format=%s"], trial.clone, trial.env);
        expect(log.stdout.trim().split("\n")).toEqual(["Add the iterator agent", "The project"]);
      });
    });
  }
});
