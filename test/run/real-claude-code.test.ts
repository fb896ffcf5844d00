import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo, makeTestClock } from "../../src/testing/index.js";
import {
  type AnthropicApi,
  type AnthropicTurn,
  bashCall,
  offeredToolsOf,
  STRUCTURED_OUTPUT_TOOL,
  startAnthropicApi,
  toolResultsOf,
  writeCall,
} from "../doubles/anthropic-api/anthropic-api.js";
import {
  findRealClaudeCode,
  makeRealClaudeCodeSetup,
  type RealClaudeCodeSetup,
  SCRIPTED_API_KEY,
} from "../doubles/anthropic-api/real-claude-code.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";
import { readRecordedEvents } from "./support/recorded-events.js";

/**
 * A whole run with the claude-sdk backend where nothing is faked but the
 * model: the SDK starts the real Claude Code binary, whose tools really run
 * in the fixture repository, and the model's side of the API is a script on
 * loopback (test/doubles/anthropic-api/; docs/backends.md#real-claude-code).
 */

const executablePath = findRealClaudeCode();
const MISSING =
  "the real Claude Code is not installed (the optional package " +
  "@anthropic-ai/claude-agent-sdk-<platform> is missing): skipped";

/** The check fails until widgets.txt says the widgets work. */
const WIDGETS_CHECK = [
  'import { existsSync, readFileSync } from "node:fs";',
  'if (!existsSync("widgets.txt") || !readFileSync("widgets.txt", "utf8").includes("working")) {',
  '  console.error("not ok 1 - widgets.txt says the widgets work");',
  "  process.exit(1);",
  "}",
  'console.log("ok 1 - widgets work");',
  "",
].join("\n");

const TASK = {
  kind: "text",
  title: "Make the widgets work",
  body: "Write widgets.txt saying the widgets are working, and commit it.",
} as const;

const COMMIT_MESSAGE = "make the widgets work";

/** The variables that point the binary at the scripted API, each of which must reach it. */
const HERMETIC_NAMES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
  "CLAUDE_CONFIG_DIR",
  "HOME",
  "HTTPS_PROXY",
];

const WORKING = {
  status: "in_progress",
  summary: "wrote widgets.txt",
  next_action: { action: "continue", reason: "not committed yet" },
};

function withoutConfigDir(env: Readonly<Record<string, string>>): Record<string, string> {
  const { CLAUDE_CONFIG_DIR: _named, ...rest } = env;
  return rest;
}

function commitCall() {
  return bashCall(
    `git add --all && git commit --quiet -m "${COMMIT_MESSAGE}" && git log -1 --format=%s`,
  );
}

describe.skipIf(executablePath === undefined)(
  executablePath === undefined ? MISSING : "whole runs through the real Claude Code",
  () => {
    let api: AnthropicApi | undefined;
    let claude: RealClaudeCodeSetup | undefined;
    let repo: FixtureRepo | undefined;
    afterEach(async () => {
      await api?.close();
      await claude?.cleanup();
      await repo?.cleanup();
      api = undefined;
      claude = undefined;
      repo = undefined;
    });

    async function start(
      turns: (widgets: string) => AnthropicTurn[],
      { configInHome = false }: { readonly configInHome?: boolean } = {},
    ) {
      api = await startAnthropicApi({ usage: { inputTokens: 1000, outputTokens: 50 } });
      claude = await makeRealClaudeCodeSetup(api, { executablePath: executablePath ?? "" });
      const fixer = makeIssueAgent({
        runner: { ...claude.runner, maxIterations: 3 },
        parameters: {},
        initialPrompt: "# {{task.title}}\n\n{{task.body}}\n",
      });
      repo = await makeFixtureRepo({
        files: { ...PROJECT, "check.mjs": WIDGETS_CHECK },
        agents: [fixer],
      });
      const widgets = join(repo.dir, "widgets.txt");
      api.script(turns(widgets));
      const outcome = await runTask({
        agent: await loadAgent("fixer", { cwd: repo.dir }),
        cwd: repo.dir,
        task: TASK,
        clock: makeTestClock(),
        // configInHome: CLAUDE_CONFIG_DIR unset, the user's folder is ~/.claude (the private HOME's).
        env: configInHome ? withoutConfigDir(claude.env) : claude.env,
      });
      return { api, claude, repo, widgets, outcome };
    }

    it("the model writes a file and commits through Claude Code's own tools; the checks pass; the run completes", async () => {
      const { api, claude, repo, widgets, outcome } = await start((widgets) => [
        {
          toolCalls: [writeCall(widgets, "the widgets are working\n"), commitCall()],
          text: "The widgets work now.",
          structuredOutput: DONE,
        },
      ]);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      // The real tools did the work in the repository.
      expect(await readFile(widgets, "utf8")).toBe("the widgets are working\n");
      expect((await repo.git("log", "-1", "--format=%s")).stdout.trim()).toBe(COMMIT_MESSAGE);
      expect((await repo.git("status", "--porcelain")).stdout).toBe("");
      // The model's steps, each answered once; no call home, no side request left unanswered.
      expect(api.requests.map((request) => request.served)).toEqual([
        "tool:Write",
        "tool:Bash",
        "structured-output",
      ]);
      const [first, afterWrite, afterBash] = api.requests;
      expect(first?.headers["x-api-key"]).toBe(SCRIPTED_API_KEY);
      expect(JSON.stringify(first?.body.messages)).toContain(TASK.body);
      const structuredOutputTool = offeredToolsOf(first?.body ?? {}).find(
        (tool) => tool.name === STRUCTURED_OUTPUT_TOOL,
      );
      expect(structuredOutputTool).toMatchObject({ input_schema: { required: ["status"] } });
      // What Claude Code sent back: the tools ran, the commit is in the Bash output.
      const writeResult = afterWrite && toolResultsOf(afterWrite).at(-1);
      expect(writeResult).toMatchObject({ toolUseId: "toolu_scripted_1", isError: false });
      expect(writeResult?.content).toContain(widgets);
      const bashResult = afterBash && toolResultsOf(afterBash).at(-1);
      expect(bashResult).toMatchObject({ toolUseId: "toolu_scripted_2", isError: false });
      expect(bashResult?.content).toContain(COMMIT_MESSAGE);

      const events = await readRecordedEvents(outcome.runDir);
      // The binary's environment came through closer's policy: the API settings in, closer's own out.
      const environment = events.find((event) => event.type === "environment");
      expect(environment?.backend).toEqual(expect.arrayContaining(HERMETIC_NAMES));
      expect(environment?.backend).not.toContain("CLOSER_CLAUDE_PATH");
      const checks = events.filter((event) => event.type === "validator-end");
      expect(checks.map((event) => [event.validator, event.valid])).toEqual([
        ["git-clean", true],
        ["check-passes", true],
      ]);
      expect(checks[1]?.stdout).toContain("ok 1 - widgets work");
      // The usage the server reported (three responses) reached closer's cost accounting.
      const backendEnd = events.find((event) => event.type === "backend-end");
      expect(backendEnd).toMatchObject({
        hasStructuredOutput: true,
        usage: { inputTokens: 3000, outputTokens: 150 },
      });
      expect(outcome.costUsd).toBeGreaterThan(0);
      expect(outcome.costUsd).toBe(backendEnd?.costUsd);
      // Claude Code kept its session in the config folder closer's environment names.
      expect(await readdir(join(claude.configDir, "projects"))).not.toEqual([]);
    });

    it("the model's commands see a placeholder, never the API key; the key reaches the API through closer's proxy; what the model writes in its state folder goes with the run", async () => {
      let modelEnv = "";
      let stateDir = "";
      const {
        api,
        claude: setup,
        outcome,
      } = await start(
        (widgets) => {
          // In the tree (the one place the sandbox lets a command write), committed with the work.
          modelEnv = join(widgets, "..", "model-env.txt");
          stateDir = join(widgets, "..", "model-state-dir.txt");
          return [
            {
              toolCalls: [
                bashCall(
                  `env > ${modelEnv}; echo "$CLAUDE_CONFIG_DIR" > ${stateDir}; ` +
                    `echo '{"hooks":{"SessionStart":[]}}' > "$CLAUDE_CONFIG_DIR/settings.json"`,
                ),
                writeCall(widgets, "the widgets are working\n"),
                commitCall(),
              ],
              structuredOutput: DONE,
            },
          ];
        },
        { configInHome: true },
      );

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      const seen = await readFile(modelEnv, "utf8");
      expect(seen).toContain("ANTHROPIC_API_KEY=closer-placeholder-ANTHROPIC_API_KEY");
      expect(seen).not.toContain(SCRIPTED_API_KEY);
      expect(seen).not.toContain(api.baseUrl);
      // Every request reached the API with the real key, none with the placeholder.
      expect(api.requests.length).toBeGreaterThan(0);
      for (const request of api.requests) {
        expect(request.headers["x-api-key"]).toBe(SCRIPTED_API_KEY);
      }
      expect(JSON.stringify(api.requests.map((request) => request.headers))).not.toContain(
        "closer-placeholder",
      );
      // The state folder was the run's: gone after it; the user's own stays as it was.
      const runState = (await readFile(stateDir, "utf8")).trim();
      expect(runState).not.toBe(setup.configDir);
      expect(existsSync(runState)).toBe(false);
      expect(await readdir(setup.configDir)).toEqual([]);
    });

    it("the second iteration resumes the first one's session in Claude Code", async () => {
      const { api, repo, outcome } = await start((widgets) => [
        { toolCalls: [writeCall(widgets, "the widgets are working\n")], structuredOutput: WORKING },
        { toolCalls: [commitCall()], structuredOutput: DONE },
      ]);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
      expect((await repo.git("log", "-1", "--format=%s")).stdout.trim()).toBe(COMMIT_MESSAGE);
      expect(api.requests.map((request) => request.served)).toEqual([
        "tool:Write",
        "structured-output",
        "tool:Bash",
        "structured-output",
      ]);
      const sessions = api.requests.map((request) => request.headers["x-claude-code-session-id"]);
      expect(new Set(sessions).size).toBe(1);
      // The second query starts from the first one's conversation: its Write and the answer to it.
      const secondQuery = api.requests[2];
      expect(secondQuery && toolResultsOf(secondQuery).map((result) => result.toolUseId)).toEqual([
        "toolu_scripted_1",
        "toolu_scripted_2",
      ]);
      const events = await readRecordedEvents(outcome.runDir);
      const queries = events.filter((event) => event.type === "backend-end");
      expect(queries.map((event) => event.sessionId)).toEqual([sessions[0], sessions[0]]);
    });
  },
);
