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
import { makeOpencodeBackend } from "./opencode.js";

// opencode has no output-schema flag: its declaration comes through the decision channels.
describeBackendContract(
  "opencode",
  () => makeFakeCliContractHarness("opencode", (command) => makeOpencodeBackend({ command })),
  { structuredOutput: false },
);

describe("opencode backend", () => {
  let setup: FakeCliSetup;
  const backend = () => makeOpencodeBackend({ command: [fakeCliPath("opencode")] });

  beforeEach(async () => {
    setup = await setUpFakeCli();
  });
  afterEach(async () => {
    await setup.cleanup();
  });

  it("runs `opencode run --format json` with the model and the prompt on stdin", async () => {
    await setup.script([{ text: "ok" }]);
    await backend().query(
      makeRequest(setup, { prompt: "Fix it.", model: "anthropic/claude-sonnet-4-5" }),
    );
    const [call] = await setup.log();
    const argv = call?.argv ?? [];
    expect(argv.slice(0, 3)).toEqual(["run", "--format", "json"]);
    expect(argv[argv.indexOf("--model") + 1]).toBe("anthropic/claude-sonnet-4-5");
    expect(argv).not.toContain("--session");
    expect(call?.stdin).toBe("Fix it.");
  });

  it("returns the final text, session, summed cost and tokens, and tools; never structured output", async () => {
    await setup.script([
      {
        text: '{"status":"completed"}',
        sessionId: "ses_abc",
        costUsd: 0.03,
        tools: ["edit", "bash"],
        files: { "out.txt": "1\n" },
        usage: { inputTokens: 11, outputTokens: 5, cacheReadTokens: 2, cacheCreationTokens: 3 },
      },
    ]);
    const response = await backend().query(makeRequest(setup, { schema: { type: "object" } }));
    expect(response.error).toBeUndefined();
    expect(response.text).toBe('{"status":"completed"}');
    expect(response.structuredOutput).toBeUndefined();
    expect(response.sessionId).toBe("ses_abc");
    expect(response.costUsd).toBeCloseTo(0.03);
    expect(response.usage).toEqual({
      inputTokens: 11,
      outputTokens: 5,
      cacheReadTokens: 2,
      cacheCreationTokens: 3,
    });
    expect(response.toolsUsed).toEqual(["edit", "bash"]);
    expect(await readFile(path.join(setup.cwd, "out.txt"), "utf8")).toBe("1\n");
  });

  it("hands each tool call to onToolCall as opencode prints it (docs/observe.md#tool-calls)", async () => {
    await setup.script([{ text: "done", tools: ["edit", "bash"] }]);
    const heard: string[] = [];
    await backend().query({
      ...makeRequest(setup),
      onToolCall: (activity) => heard.push(`${activity.phase} ${activity.call.action}`),
    });
    expect(heard).toEqual(["start edit", "end edit", "start command", "end command"]);
  });

  it("continues a session with --session", async () => {
    await setup.script([{ sessionId: "ses_1" }, {}]);
    const opencode = backend();
    const first = await opencode.query(makeRequest(setup));
    const second = await opencode.query(makeRequest(setup, { sessionId: first.sessionId }));
    const calls = await setup.log();
    const argv = calls[1]?.argv ?? [];
    expect(argv[argv.indexOf("--session") + 1]).toBe("ses_1");
    expect(second.sessionId).toBe("ses_1");
  });

  it("skips permission prompts only when the permission mode bypasses them", async () => {
    await setup.script([{}, {}]);
    const opencode = backend();
    await opencode.query(makeRequest(setup, { permissionMode: "acceptEdits" }));
    await opencode.query(makeRequest(setup, { permissionMode: "bypassPermissions" }));
    const calls = await setup.log();
    expect(calls[0]?.argv).not.toContain("--dangerously-skip-permissions");
    expect(calls[1]?.argv).toContain("--dangerously-skip-permissions");
  });

  it.each([
    ["rate_limit", "rate_limit", true],
    ["overloaded", "overloaded", true],
    ["auth", "auth", false],
    ["session_expired", "session_expired", true],
    ["crash", "crash", false],
  ] as const)("classifies a %s failure as %s", async (fail, kind, retryable) => {
    await setup.script([{ fail }]);
    const response = await backend().query(makeRequest(setup, { sessionId: "ses_old" }));
    expect(response.error?.kind).toBe(kind);
    expect(response.error?.retryable).toBe(retryable);
  });

  it("takes the wait from the Retry-After header of a rate limit", async () => {
    await setup.script([{ fail: "rate_limit", retryAfterSeconds: 7 }]);
    const response = await backend().query(makeRequest(setup));
    expect(response.error?.retryAfterMs).toBe(7000);
  });
});
