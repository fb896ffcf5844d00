import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { readRunState } from "../../src/record/run-record.js";
import { runTask } from "../../src/run/index.js";
import { sandboxSupport } from "../../src/sandbox/sandbox-runtime.js";
import { type FixtureRepo, makeFixtureRepo, makeTestClock } from "../../src/testing/index.js";
import {
  type AnthropicApi,
  type AnthropicTurn,
  bashCall,
  startAnthropicApi,
  toolResultsOf,
  writeCall,
} from "../doubles/anthropic-api/anthropic-api.js";
import {
  findRealClaudeCode,
  makeRealClaudeCodeSetup,
  type RealClaudeCodeSetup,
} from "../doubles/anthropic-api/real-claude-code.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";
import { readRecordedEvents } from "./support/recorded-events.js";

/**
 * The real Claude Code inside closer's OS sandbox (docs/sandbox.md): the
 * binary, its tools and the checks run sandboxed, and the model's API is a
 * script on loopback, reached through the sandbox's proxy and closer's key
 * proxy, which the backend's ANTHROPIC_BASE_URL names
 * (docs/integrity.md#credentials).
 */

const executablePath = findRealClaudeCode();
const support = await sandboxSupport();
const skipReason =
  executablePath === undefined
    ? "the real Claude Code is not installed (the optional package @anthropic-ai/claude-agent-sdk-<platform> is missing): skipped"
    : support.works
      ? undefined
      : `the OS sandbox cannot run here (${support.reason}): skipped`;

const WIDGETS_CHECK = [
  'import { readFileSync } from "node:fs";',
  'if (!readFileSync("widgets.txt", "utf8").includes("working")) process.exit(1);',
  'console.log("ok 1 - widgets work");',
  "",
].join("\n");

const TASK = { kind: "text", title: "Make the widgets work", body: "Write widgets.txt." } as const;

describe.skipIf(skipReason !== undefined)(
  skipReason ?? "the real Claude Code in the OS sandbox",
  () => {
    let api: AnthropicApi | undefined;
    let claude: RealClaudeCodeSetup | undefined;
    let repo: FixtureRepo | undefined;
    let outside: string | undefined;
    afterEach(async () => {
      await api?.close();
      await claude?.cleanup();
      await repo?.cleanup();
      if (outside !== undefined) await rm(outside, { recursive: true, force: true });
      api = claude = repo = outside = undefined;
    });

    async function start(
      turns: (tree: string) => AnthropicTurn[],
      { freshHome = false }: { readonly freshHome?: boolean } = {},
    ) {
      api = await startAnthropicApi({ usage: { inputTokens: 1000, outputTokens: 50 } });
      claude = await makeRealClaudeCodeSetup(api, { executablePath: executablePath ?? "" });
      const fixer = makeIssueAgent({
        runner: {
          // Claude Code's own permissions would stop the escapes before the sandbox sees them;
          // as root it takes bypassPermissions only with IS_SANDBOX set.
          backend: { ...claude.runner.backend, permissionMode: "bypassPermissions" },
          env: { backend: ["IS_SANDBOX"] },
          maxIterations: 3,
          sandbox: { mode: "on" },
        },
        parameters: {},
        initialPrompt: "# {{task.title}}\n\n{{task.body}}\n",
      });
      repo = await makeFixtureRepo({
        files: { ...PROJECT, "check.mjs": WIDGETS_CHECK },
        agents: [fixer],
      });
      api.script(turns(repo.dir));
      // A fresh machine: no ~/.claude, no CLAUDE_CONFIG_DIR.
      const { CLAUDE_CONFIG_DIR: _userConfig, ...freshEnv } = claude.env;
      if (freshHome) await rm(claude.configDir, { recursive: true });
      const outcome = await runTask({
        agent: await loadAgent("fixer", { cwd: repo.dir }),
        cwd: repo.dir,
        task: TASK,
        clock: makeTestClock(),
        env: { ...(freshHome ? freshEnv : claude.env), IS_SANDBOX: "1" },
      });
      return { api, repo, outcome, claude };
    }

    const commit = () => bashCall("git add --all && git commit --quiet -m widgets");

    it("an honest run completes with the sandbox on: the binary reaches the scripted API through the sandbox's proxy, its tools write in the tree and commit", async () => {
      const { api, repo, outcome } = await start((tree) => [
        {
          toolCalls: [writeCall(join(tree, "widgets.txt"), "working\n"), commit()],
          structuredOutput: DONE,
        },
      ]);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      expect(outcome.sandbox).toMatchObject({ on: true, refusals: 0 });
      expect(await readFile(join(repo.dir, "widgets.txt"), "utf8")).toBe("working\n");
      expect((await repo.git("status", "--porcelain")).stdout).toBe("");
      expect(api.requests.map((request) => request.served)).toEqual([
        "tool:Write",
        "tool:Bash",
        "structured-output",
      ]);
      const state = await readRunState(outcome.runDir);
      const backendHosts = (state.sandbox?.policy?.backend as { hosts?: string[] } | undefined)
        ?.hosts;
      // The backend reaches closer's key proxy on loopback; the API itself only closer reaches.
      expect(backendHosts?.some((host) => /^127\.0\.0\.1:\d+$/.test(host))).toBe(true);
      expect(backendHosts).not.toContain(new URL(api.baseUrl).host);
    });

    it("on a fresh machine (no ~/.claude) Claude Code works in the run's own state folder, and the model's write there does not outlive the run; ~/.claude stays read-only and absent", async () => {
      const { repo, outcome, claude } = await start(
        (tree) => [
          {
            toolCalls: [
              bashCall(
                `echo "$CLAUDE_CONFIG_DIR" > state-dir.txt; ` +
                  `echo '{"hooks":{}}' > "$CLAUDE_CONFIG_DIR/settings.json"`,
              ),
              writeCall(join(tree, "widgets.txt"), "working\n"),
              commit(),
            ],
            structuredOutput: DONE,
          },
        ],
        { freshHome: true },
      );

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      expect(outcome.sandbox).toMatchObject({ on: true, refusals: 0 });
      const stateDir = (await readFile(join(repo.dir, "state-dir.txt"), "utf8")).trim();
      expect(stateDir).not.toBe("");
      expect(stateDir.startsWith(claude.homeDir)).toBe(false);
      expect(existsSync(stateDir)).toBe(false);
      expect(existsSync(claude.configDir)).toBe(false);
      const state = await readRunState(outcome.runDir);
      const policy = state.sandbox?.policy as
        | { backend?: { allowWrite?: string[] }; validators?: { denyRead?: string[] } }
        | undefined;
      expect(policy?.backend?.allowWrite).toContain(stateDir);
      expect(policy?.backend?.allowWrite).not.toContain(claude.configDir);
      expect(policy?.validators?.denyRead).toContain(stateDir);
    });

    it("the model's Bash writes .git/config and a file outside the tree: both refused and recorded; that declaration does not complete the run, the retry names them; the honest second attempt completes", async () => {
      outside = await mkdtemp(join(tmpdir(), "closer-outside-"));
      const stolen = join(outside, "note.txt");
      const { api, repo, outcome } = await start((tree) => [
        {
          toolCalls: [
            bashCall(
              `echo '[core]\n\thooksPath = /tmp' >> .git/config; echo escaped > ${stolen}; true`,
            ),
            writeCall(join(tree, "widgets.txt"), "working\n"),
            commit(),
          ],
          structuredOutput: DONE,
        },
        { structuredOutput: DONE },
      ]);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
      expect(outcome.sandbox?.refusals).toBeGreaterThanOrEqual(2);
      expect(await readFile(stolen, "utf8").catch(() => "absent")).toBe("absent");
      expect(await readFile(join(repo.dir, ".git/config"), "utf8")).not.toContain("hooksPath");
      // Claude Code's Bash tool saw the refusal.
      const afterBash = api.requests[1];
      expect(JSON.stringify(afterBash && toolResultsOf(afterBash))).toMatch(
        // bash says "Read-only file system", zsh "read-only file system".
        /read-only file system/i,
      );

      const events = await readRecordedEvents(outcome.runDir);
      const refused = events.filter((event) => event.type === "sandbox-refused");
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ iteration: 1, kind: "backend" });
      expect(String(refused[0]?.refusals)).toContain(join(repo.dir, ".git/config"));
      expect(String(refused[0]?.refusals)).toContain(stolen);
      const refuted = events.filter((event) => event.type === "declaration-refuted");
      expect(refuted).toMatchObject([{ iteration: 1, pattern: "sandbox-refused" }]);
      const retry = await readFile(join(outcome.runDir, "prompts/iteration-002.md"), "utf8");
      expect(retry).toContain(join(repo.dir, ".git/config"));
      expect(retry).toContain("OS sandbox refused");
    });
  },
);
