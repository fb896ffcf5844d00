import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AnthropicApi,
  bashCall,
  startAnthropicApi,
  writeCall,
} from "../doubles/anthropic-api/anthropic-api.js";
import { findRealClaudeCode } from "../doubles/anthropic-api/real-claude-code.js";
import { runProgram } from "../support/run-program.js";

/**
 * What a user watching `closer run` sees of the model's work (docs/observe.md#live-view):
 * the real Claude Code binary, driven by a scripted model on loopback, writes a file, runs
 * a command that fails, one that takes a while and one that commits; the run's progress
 * names each of those tool calls, keeps a heartbeat going while a command runs without a
 * terminal, draws its status line in place under a terminal, and the record keeps the same
 * calls as `tool-call` events.
 */

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const executablePath = findRealClaudeCode();

const PROJECT: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "widgets", private: true, scripts: { test: "node --test" } }, null, 2)}\n`,
  "widgets.test.js": [
    'const test = require("node:test");',
    'const assert = require("node:assert");',
    'test("widgets work", () => assert.strictEqual(require("./widgets.js").working, true));',
    "",
  ].join("\n"),
};

const DECLARED = {
  status: "completed",
  summary: "Made the widgets work.",
  next_action: { action: "complete", reason: "done and committed" },
};
const REVIEWED = {
  allComplete: true,
  checklist: [{ item: "widgets work", done: true, evidence: "the test" }],
  pendingActions: [],
};

/** A program run with exactly `env`, as a user's shell would run it. */
const run = (command: string, args: readonly string[], cwd: string, env: Record<string, string>) =>
  runProgram(command, args, { cwd, env });

const closerArgs = (args: readonly string[]) => ["--import", TSX_LOADER, MAIN, ...args];

let scratch: string | undefined;
let api: AnthropicApi | undefined;
afterEach(async () => {
  await api?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  api = scratch = undefined;
});

/** A project with the iterator agent, and a model scripted to do the work through four tool calls. */
async function prepare() {
  scratch = await realpath(await mkdtemp(join(tmpdir(), "closer-live-view-")));
  const project = join(scratch, "project");
  const home = join(scratch, "home");
  await mkdir(project);
  await mkdir(home);
  for (const [path, content] of Object.entries(PROJECT)) {
    await writeFile(join(project, path), content);
  }
  api = await startAnthropicApi({ usage: { inputTokens: 1000, outputTokens: 50 } });
  api.script([
    {
      toolCalls: [
        writeCall(join(project, "widgets.js"), "exports.working = true;\n"),
        bashCall("ls missing.txt"),
        bashCall("sleep 3"),
        bashCall('git add --all && git commit --quiet -m "make the widgets work"'),
      ],
      structuredOutput: DECLARED,
    },
    { structuredOutput: REVIEWED },
  ]);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_AUTHOR_NAME: "Live Viewer",
    GIT_AUTHOR_EMAIL: "live@example.com",
    GIT_COMMITTER_NAME: "Live Viewer",
    GIT_COMMITTER_EMAIL: "live@example.com",
    ANTHROPIC_BASE_URL: api.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-scripted-0000",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLOSER_CLAUDE_PATH: String(executablePath),
  };
  const git = (...args: string[]) => run("git", args, project, env);
  await git("init", "--quiet", "--initial-branch=main");
  const init = await run(process.execPath, closerArgs(["init"]), project, env);
  expect(init.code, init.stderr).toBe(0);
  await git("add", "--all");
  await git("commit", "--quiet", "-m", "The project and its agent");
  return { project, env };
}

const RUN = [
  "run",
  "iterator",
  "--task",
  "Make the widgets work",
  "--no-worktree",
  "--sandbox",
  "off",
];

async function toolCallsRecorded(stdout: string) {
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { runDir: string };
  const events = (await readFile(join(result.runDir, "events.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(events.some((event) => event.type === "tool-start")).toBe(false);
  return events.filter((event) => event.type === "tool-call");
}

describe.skipIf(executablePath === undefined)(
  `the live view of the model's work${executablePath === undefined ? " — skipped: the real Claude Code is not installed (@anthropic-ai/claude-agent-sdk-<platform>)" : ""}`,
  { timeout: 120_000 },
  () => {
    it("without a terminal: a line per tool call, a heartbeat while a command runs, and the same calls in the record", async () => {
      const { project, env } = await prepare();

      const ran = await run(
        process.execPath,
        closerArgs([...RUN, "--json", "--heartbeat", "1"]),
        project,
        env,
      );

      expect(ran.code, ran.stderr).toBe(0);
      const lines = ran.stderr.split("\n");
      expect(lines).toContain("    write widgets.js");
      expect(lines).toContain("    run ls missing.txt · exit 2");
      expect(lines.some((line) => /^ {4}run sleep 3 · exit 0 \d/.test(line))).toBe(true);
      expect(lines.some((line) => line.startsWith("    run git add --all && git commit"))).toBe(
        true,
      );
      // While `sleep 3` ran, nothing else was written: the heartbeat names what is under way.
      const sleeping = lines.filter((line) =>
        /^ {2}… claude-sdk .*working .* · run sleep 3 /.test(line),
      );
      expect(sleeping.length).toBeGreaterThanOrEqual(2);
      expect(lines.some((line) => line.startsWith("  checking tests-pass"))).toBe(true);
      expect(ran.stderr).not.toContain("\r");

      const recorded = await toolCallsRecorded(ran.stdout);
      expect(
        recorded.map(({ action, target, exitCode, failed }) => ({
          action,
          target,
          exitCode,
          failed,
        })),
      ).toEqual([
        { action: "write", target: "widgets.js", exitCode: undefined, failed: false },
        { action: "command", target: "ls missing.txt", exitCode: 2, failed: true },
        { action: "command", target: "sleep 3", exitCode: 0, failed: false },
        {
          action: "command",
          target: 'git add --all && git commit --quiet -m "make the widgets work"',
          exitCode: 0,
          failed: false,
        },
      ]);
      expect(recorded.every((event) => event.iteration === 1 && event.tool !== undefined)).toBe(
        true,
      );
    });

    it("under a terminal: the status line names the tool call under way and is redrawn in place", async () => {
      const { project, env } = await prepare();
      const command = [process.execPath, ...closerArgs(RUN)].map((part) => `'${part}'`).join(" ");

      // util-linux's `script` runs the command on a pseudo-terminal, as a terminal emulator does.
      const ran = await run(
        "script",
        ["--quiet", "--return", "--command", command, "/dev/null"],
        project,
        {
          ...env,
          TERM: "xterm-256color",
        },
      );

      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.stdout).toMatch(/\r\x1b\[2K.*… claude-sdk .*working .* · run sleep 3 /);
      expect(ran.stdout).toContain("    write widgets.js");
      expect(ran.stdout).toContain("exit 2");
    });

    it("--quiet: nothing but how the run ended", async () => {
      const { project, env } = await prepare();

      const ran = await run(process.execPath, closerArgs([...RUN, "--quiet"]), project, env);

      expect(ran.code, ran.stderr).toBe(0);
      const lines = ran.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^completed after 1 iteration\(s\), \$[\d.]+: verified in iteration 1$/,
      );
      expect(lines[1]).toMatch(/^run folder: /);
    });
  },
);
