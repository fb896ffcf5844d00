import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeBackendContract } from "../../../test/backend-contract.js";
import { makeFakeCliContractHarness } from "../../../test/doubles/fake-cli/contract-harness.js";
import {
  type FakeCliSetup,
  fakeCliPath,
  makeRequest,
  setUpFakeCli,
} from "../../../test/doubles/fake-cli/fake-cli-harness.js";
import {
  makeClaudeCliBackend,
  readClaudeCliResult,
  resolveClaudeCliCommand,
} from "./claude-cli.js";

const schema = {
  type: "object",
  properties: { status: { type: "string" } },
  required: ["status"],
  additionalProperties: false,
};

describeBackendContract("claude-cli", () =>
  makeFakeCliContractHarness("claude", (command) =>
    makeClaudeCliBackend({ command, settingSources: [] }),
  ),
);

describe("claude-cli backend", () => {
  let setup: FakeCliSetup;
  const backend = () =>
    makeClaudeCliBackend({ command: [fakeCliPath("claude")], settingSources: [], maxTurns: 7 });

  beforeEach(async () => {
    setup = await setUpFakeCli();
  });
  afterEach(async () => {
    await setup.cleanup();
  });

  it("sends the prompt on stdin with the schema, model, tools and permission mode as flags", async () => {
    await setup.script([{ structuredOutput: { status: "completed" } }]);
    await backend().query(
      makeRequest(setup, {
        prompt: "Fix the bug.",
        schema,
        model: "claude-opus-4-1",
        allowedTools: ["Read", "Bash(git status:*)"],
        disallowedTools: ["Bash(gh issue close:*)"],
        permissionMode: "bypassPermissions",
        systemPrompt: "Work carefully.",
      }),
    );
    const [call] = await setup.log();
    expect(call?.stdin).toBe("Fix the bug.");
    expect(call?.schema).toEqual(schema);
    const argv = call?.argv ?? [];
    const argumentOf = (flag: string) => argv[argv.indexOf(flag) + 1];
    expect(argv).toContain("-p");
    expect(argumentOf("--output-format")).toBe("json");
    expect(argumentOf("--model")).toBe("claude-opus-4-1");
    expect(argumentOf("--allowedTools")?.split(",")).toEqual(["Read", "Bash(git status:*)"]);
    expect(argumentOf("--disallowedTools")).toBe("Bash(gh issue close:*)");
    expect(argumentOf("--permission-mode")).toBe("bypassPermissions");
    expect(argumentOf("--append-system-prompt")).toBe("Work carefully.");
    expect(argumentOf("--setting-sources")).toBe("");
    expect(argumentOf("--max-turns")).toBe("7");
    expect(argv).not.toContain("--resume");
  });

  it("returns the structured output, session, cost, usage and tools of the result", async () => {
    await setup.script([
      {
        structuredOutput: { status: "completed" },
        text: "All done.",
        sessionId: "session-a",
        costUsd: 0.25,
        usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 30, cacheCreationTokens: 40 },
        tools: ["Edit", "Bash"],
        files: { "src/done.txt": "yes\n" },
      },
    ]);
    const response = await backend().query(makeRequest(setup, { schema }));
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toEqual({ status: "completed" });
    expect(response.text).toBe("All done.");
    expect(response.sessionId).toBe("session-a");
    expect(response.costUsd).toBeCloseTo(0.25);
    expect(response.usage).toEqual({
      inputTokens: 10,
      outputTokens: 20,
      cacheReadTokens: 30,
      cacheCreationTokens: 40,
    });
    expect(response.toolsUsed).toEqual(["Edit", "Bash"]);
    expect(response.transcript.length).toBeGreaterThan(1);
    expect(await readFile(path.join(setup.cwd, "src/done.txt"), "utf8")).toBe("yes\n");
  });

  it("answers with text only when the step has no schema", async () => {
    await setup.script([{ structuredOutput: { status: "completed" }, text: "plain" }]);
    const response = await backend().query(makeRequest(setup));
    const [call] = await setup.log();
    expect(call?.argv).not.toContain("--json-schema");
    expect(response.structuredOutput).toBeUndefined();
    expect(response.text).toBe("plain");
  });

  it("continues a session with --resume and reports only the new cost of the session", async () => {
    await setup.script([{ sessionId: "session-b", costUsd: 0.1 }, { costUsd: 0.35 }]);
    const claude = backend();
    const first = await claude.query(makeRequest(setup));
    const second = await claude.query(makeRequest(setup, { sessionId: first.sessionId }));
    const calls = await setup.log();
    expect(calls[1]?.argv[calls[1].argv.indexOf("--resume") + 1]).toBe("session-b");
    expect(second.sessionId).toBe("session-b");
    expect(second.costUsd).toBeCloseTo(0.25);
  });

  it("passes the request's environment to the CLI", async () => {
    await setup.script([{}]);
    await backend().query(makeRequest(setup, { env: { CLOSER_CHECK_ID: "check-42" } }));
    const [call] = await setup.log();
    expect(call?.env.CLOSER_CHECK_ID).toBe("check-42");
    expect(call?.cwd).toBe(setup.cwd);
  });

  it.each([
    ["rate_limit", "rate_limit", true],
    ["overloaded", "overloaded", true],
    ["auth", "auth", false],
    ["max_turns", "max_turns", false],
    ["session_expired", "session_expired", true],
    ["crash", "crash", false],
  ] as const)("classifies a %s failure as %s", async (fail, kind, retryable) => {
    await setup.script([{ fail }]);
    const response = await backend().query(makeRequest(setup, { sessionId: "old" }));
    expect(response.error?.kind).toBe(kind);
    expect(response.error?.retryable).toBe(retryable);
    expect(response.structuredOutput).toBeUndefined();
  });

  it("reads the reset time of a usage limit as the wait", async () => {
    await setup.script([{ fail: "rate_limit", retryAfterSeconds: 120 }]);
    const response = await backend().query(makeRequest(setup));
    expect(response.error?.kind).toBe("rate_limit");
    expect(response.error?.retryAfterMs).toBeGreaterThan(60_000);
    expect(response.error?.retryAfterMs).toBeLessThanOrEqual(120_000);
  });

  it("reports a missing executable as a configuration problem", async () => {
    const missing = makeClaudeCliBackend({ command: [path.join(setup.cwd, "no-such-claude")] });
    const response = await missing.query(makeRequest(setup));
    expect(response.error?.kind).toBe("config");
    expect(response.error?.retryable).toBe(false);
  });
});

describe("resolveClaudeCliCommand", () => {
  it("prefers CLOSER_CLAUDE_PATH, then claudePath, then command, then claude", () => {
    const config = { claudePath: "/opt/claude", command: ["node", "claude.js"] };
    expect(resolveClaudeCliCommand(config, { CLOSER_CLAUDE_PATH: "/env/claude" })).toEqual([
      "/env/claude",
    ]);
    expect(resolveClaudeCliCommand(config, {})).toEqual(["/opt/claude"]);
    expect(resolveClaudeCliCommand({ command: ["node", "claude.js"] }, {})).toEqual([
      "node",
      "claude.js",
    ]);
    expect(resolveClaudeCliCommand({}, {})).toEqual(["claude"]);
  });
});

describe("readClaudeCliResult", () => {
  const finished = (stdout: string, exitCode = 0) => ({
    exitCode,
    stdout,
    stderr: "",
    durationMs: 3,
    timedOut: false,
    aborted: false,
  });
  const result = (extra: Record<string, unknown>) => ({
    type: "result",
    subtype: "success",
    is_error: false,
    result: "text",
    session_id: "s-1",
    total_cost_usd: 0.5,
    usage: { input_tokens: 1, output_tokens: 2 },
    ...extra,
  });

  it("reads the single result object printed without --verbose", () => {
    const response = readClaudeCliResult(
      finished(JSON.stringify(result({ structured_output: { status: "completed" } }))),
      { schema: { type: "object" } },
      0,
    );
    expect(response.structuredOutput).toEqual({ status: "completed" });
    expect(response.sessionId).toBe("s-1");
    expect(response.usage?.outputTokens).toBe(2);
  });

  it("answers without structured output when Claude Code gave up producing it", () => {
    const response = readClaudeCliResult(
      finished(
        JSON.stringify(result({ subtype: "error_max_structured_output_retries", is_error: true })),
        1,
      ),
      { schema: { type: "object" } },
      0,
    );
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toBeUndefined();
  });

  it("reports a budget stop as max_budget", () => {
    const response = readClaudeCliResult(
      finished(JSON.stringify(result({ subtype: "error_max_budget_usd", is_error: true })), 1),
      {},
      0,
    );
    expect(response.error?.kind).toBe("max_budget");
    expect(response.error?.retryable).toBe(false);
  });

  it("reports output it cannot read as a crash", () => {
    const response = readClaudeCliResult(finished("Segmentation fault", 139), {}, 0);
    expect(response.error?.kind).toBe("crash");
  });
});
