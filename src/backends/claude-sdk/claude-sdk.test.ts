import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeBackendContract } from "../../../test/backend-contract.js";
import {
  type ClaudeSdkTestSetup,
  makeClaudeSdkContractHarness,
  setUpClaudeSdk,
} from "../../../test/doubles/fake-claude/claude-sdk-harness.js";
import { isProcessAlive } from "../../../test/doubles/fake-claude/process-liveness.js";
import { BOUNDARY_MESSAGE } from "../boundary.js";
import { makeClaudeSdkBackend } from "./claude-sdk.js";
import { nativePackageNames } from "./executable.js";

describeBackendContract("claude-sdk", makeClaudeSdkContractHarness);

const SCHEMA_A = {
  type: "object",
  properties: { status: { type: "string" } },
  required: ["status"],
};
const SCHEMA_B = {
  type: "object",
  properties: { next_action: { type: "object" } },
  required: ["next_action"],
};

describe("claude-sdk backend through the SDK and a fake Claude Code", () => {
  let setup: ClaudeSdkTestSetup | undefined;
  const start = async (options?: Parameters<typeof setUpClaudeSdk>[0]) => {
    setup = await setUpClaudeSdk(options);
    return setup;
  };
  afterEach(async () => {
    await setup?.cleanup();
    setup = undefined;
  });

  it("asks each step for its own schema and returns its structured output", async () => {
    const { fake, backend, request } = await start();
    const first = { status: "in_progress" };
    const second = { next_action: { action: "complete" } };
    await fake.script([{ structuredOutput: first }, { structuredOutput: second }]);
    const responseA = await backend.query(request({ schema: SCHEMA_A }));
    const responseB = await backend.query(request({ schema: SCHEMA_B }));
    expect(responseA.structuredOutput).toEqual(first);
    expect(responseB.structuredOutput).toEqual(second);
    const [seenA, seenB] = await fake.invocations();
    expect(seenA?.options.jsonSchema).toEqual(SCHEMA_A);
    expect(seenB?.options.jsonSchema).toEqual(SCHEMA_B);
  });

  it("resumes the session under continue and starts a new one when fresh", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const first = await backend.query(request());
    const continued = await backend.query(request({ sessionId: first.sessionId }));
    const fresh = await backend.query(request());
    const seen = await fake.invocations();
    expect(seen.map((invocation) => invocation.options.resume)).toEqual([
      undefined,
      first.sessionId,
      undefined,
    ]);
    expect(continued.sessionId).toBe(first.sessionId);
    expect(fresh.sessionId).not.toBe(first.sessionId);
    expect([first.text, continued.text, fresh.text]).toEqual(["one", "two", "three"]);
  });

  it("sends the model of the request, and none when the request names none", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{}, {}]);
    await backend.query(request({ model: "claude-step-model" }));
    await backend.query(request());
    const [withModel, withoutModel] = await fake.invocations();
    expect(withModel?.options.model).toBe("claude-step-model");
    expect(withoutModel?.options.model).toBeUndefined();
  });

  it("passes tools, permission mode, system prompt, setting sources and the working tree", async () => {
    const { fake, backend, request, cwd } = await start({ config: { maxTurns: 7 } });
    await fake.script([{}]);
    await backend.query(
      request({
        allowedTools: ["Read", "Bash(npm test:*)"],
        disallowedTools: ["WebSearch"],
        permissionMode: "acceptEdits",
        systemPrompt: "You are the iterator agent.",
      }),
    );
    const [seen] = await fake.invocations();
    expect(seen?.options).toMatchObject({
      allowedTools: ["Read", "Bash(npm test:*)"],
      disallowedTools: ["WebSearch"],
      permissionMode: "acceptEdits",
      settingSources: [],
      maxTurns: 7,
      inputFormat: "stream-json",
      outputFormat: "stream-json",
    });
    expect(seen?.initialize?.appendSystemPrompt).toBe("You are the iterator agent.");
    expect(seen?.initialize?.hooks).toHaveProperty("PreToolUse");
    expect(seen?.cwd).toBe(cwd);
  });

  it("gives the executable closer's environment plus what closer adds, without GitHub tokens", async () => {
    const { fake, backend, request } = await start({
      env: {
        CLOSER_TEST_PARENT_VARIABLE: "from-parent",
        GITHUB_TOKEN: "ghp_closer",
        GH_TOKEN: "gho_user",
        GITHUB_ENTERPRISE_TOKEN: "ghe_token",
      },
      recordEnv: [
        "CLOSER_CHECK_ID",
        "CLOSER_TEST_PARENT_VARIABLE",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_ENTERPRISE_TOKEN",
      ],
    });
    await fake.script([{}]);
    await backend.query(request({ env: { CLOSER_CHECK_ID: "check-42" } }));
    const [seen] = await fake.invocations();
    expect(seen?.env).toEqual({
      CLOSER_CHECK_ID: "check-42",
      CLOSER_TEST_PARENT_VARIABLE: "from-parent",
      // The fake records a variable it did not get as null.
      GITHUB_TOKEN: null,
      GH_TOKEN: null,
      GITHUB_ENTERPRISE_TOKEN: null,
    });
    expect(seen?.envKeys).toContain("PATH");
  });

  it("lets the agent change files in the working tree and reports the tools it used", async () => {
    const { fake, backend, request, cwd } = await start();
    await fake.script([
      {
        actions: [
          { tool: "Write", input: { file_path: "notes.txt", content: "draft\n" } },
          {
            tool: "Edit",
            input: { file_path: "notes.txt", old_string: "draft", new_string: "final" },
          },
          { tool: "Bash", input: { command: "echo built > build.log" } },
        ],
      },
    ]);
    const response = await backend.query(request());
    expect(response.error).toBeUndefined();
    expect(response.toolsUsed).toEqual(["Write", "Edit", "Bash"]);
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("final\n");
    expect(await readFile(join(cwd, "build.log"), "utf8")).toBe("built\n");
  });

  it("denies closing the issue, whatever the permission mode, and tells the model why", async () => {
    const { fake, backend, request, cwd } = await start();
    await fake.script([
      {
        actions: [
          { tool: "Bash", input: { command: "gh issue close 5 && touch closed.txt" } },
          { tool: "Bash", input: { command: "touch allowed.txt" } },
        ],
      },
    ]);
    const response = await backend.query(request({ permissionMode: "bypassPermissions" }));
    const [seen] = await fake.invocations();
    expect(seen?.permissions.map(({ behavior, via }) => ({ behavior, via }))).toEqual([
      { behavior: "deny", via: "hook" },
      { behavior: "allow", via: "mode" },
    ]);
    expect(seen?.permissions[0]?.message).toBe(BOUNDARY_MESSAGE);
    expect(BOUNDARY_MESSAGE).toContain("closer performs GitHub side effects after verification");
    expect(isProcessAlive(seen?.pid ?? 0)).toBe(false);
    await expect(readFile(join(cwd, "closed.txt"))).rejects.toThrow();
    await expect(readFile(join(cwd, "allowed.txt"), "utf8")).resolves.toBe("");
    expect(response.toolsUsed).toEqual(["Bash", "Bash"]);
  });

  it("reports what one iteration spent, though the SDK's totals run over the session", async () => {
    const { fake, backend, request } = await start();
    await fake.script([
      { costUsd: 0.03, usage: { input_tokens: 1000, output_tokens: 200 } },
      { costUsd: 0.02, usage: { input_tokens: 400, output_tokens: 100 } },
      { costUsd: 0.05, usage: { input_tokens: 700, output_tokens: 300 } },
    ]);
    const first = await backend.query(request());
    const second = await backend.query(request({ sessionId: first.sessionId }));
    const fresh = await backend.query(request());
    expect([first.costUsd, second.costUsd, fresh.costUsd]).toEqual([0.03, 0.02, 0.05]);
    expect(first.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200 });
    expect(second.usage).toMatchObject({ inputTokens: 400, outputTokens: 100 });
    expect(fresh.usage).toMatchObject({ inputTokens: 700, outputTokens: 300 });
  });

  it("returns as soon as a timed-out query's processes are gone", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "hang" }]);
    const response = await backend.query(request({ timeoutMs: 800 }));
    const [seen] = await fake.invocations();
    expect(response.error?.kind).toBe("timeout");
    expect(seen?.childPids).toHaveLength(1);
    expect(
      [seen?.pid, ...(seen?.childPids ?? [])].filter((pid) => isProcessAlive(pid ?? 0)),
    ).toEqual([]);
  });

  it("runs a JavaScript build of Claude Code named in agent.json with node", async () => {
    const { fake, request, env } = await start();
    const backend = makeClaudeSdkBackend(
      { claudePath: fake.scriptExecutablePath },
      { env: { ...env, CLOSER_CLAUDE_PATH: undefined }, findNativeExecutable: () => undefined },
    );
    await fake.script([{ structuredOutput: { status: "completed" } }]);
    const response = await backend.query(request({ schema: SCHEMA_A }));
    expect(response.structuredOutput).toEqual({ status: "completed" });
    const [seen] = await fake.invocations();
    expect(seen?.argv).toContain("--input-format");
  });

  it("says which variable to fix when CLOSER_CLAUDE_PATH names no executable", async () => {
    const { fake, backend, request } = await start({
      env: { CLOSER_CLAUDE_PATH: "/nonexistent/claude" },
    });
    const response = await backend.query(request());
    expect(response.error?.kind).toBe("config");
    expect(response.error?.retryable).toBe(false);
    expect(response.error?.message).toContain("CLOSER_CLAUDE_PATH");
    expect(await fake.invocations()).toEqual([]);
  });

  it("says how to install the native binary when there is none", async () => {
    const env = { ...process.env, CLOSER_CLAUDE_PATH: undefined };
    const backend = makeClaudeSdkBackend({}, { env, findNativeExecutable: () => undefined });
    const response = await backend.query({
      prompt: "hello",
      cwd: process.cwd(),
      allowedTools: [],
      disallowedTools: [],
      permissionMode: "default",
      env: {},
      timeoutMs: 5000,
      signal: new AbortController().signal,
    });
    expect(response.error?.kind).toBe("config");
    expect(response.error?.message).toContain("npm install");
    expect(response.error?.message).toContain(nativePackageNames()[0]);
    expect(response.error?.message).toContain("CLOSER_CLAUDE_PATH");
  });
});
