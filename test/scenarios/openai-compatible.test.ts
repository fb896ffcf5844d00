/**
 * The openai-compatible backend in whole runs, through the real AI SDK,
 * against the fake OpenAI-compatible endpoint: `closer run` as a process
 * fixes a failing test in a real git repository by tool calls, and a
 * schema-breaking answer takes the format-retry path.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeBackend } from "../../src/backends/make-backend.js";
import type {
  ChatRequest,
  OpenaiServer,
  ScriptStep,
} from "../doubles/openai-server/openai-server.js";
import { startOpenaiServer } from "../doubles/openai-server/openai-server.js";
import { sandboxWorks } from "../faults/support/sandbox-works.js";
import { COMMIT_ALL, DONE, FIXED_PROJECT, makeTaskRepo, runTask } from "./support/task-agent.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

function runCli(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

/** What tool call `callId` answered, as the model was told in `request`. */
function toolResult(request: ChatRequest | undefined, callId: string): string {
  return String(request?.messages.find((message) => message.tool_call_id === callId)?.content);
}

/** A model that reads the bug, fixes it by an edit, runs the tests, commits and says done. */
const FIXING_MODEL: readonly ScriptStep[] = [
  { toolCalls: [{ name: "grep", arguments: { pattern: "left - right" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/add.js" } }] },
  {
    toolCalls: [
      {
        name: "edit",
        arguments: { path: "src/add.js", old_string: "left - right", new_string: "left + right" },
      },
    ],
  },
  { toolCalls: [{ name: "bash", arguments: { command: "node --test" } }] },
  { toolCalls: [{ name: "bash", arguments: { command: COMMIT_ALL } }] },
  { text: JSON.stringify(DONE) },
];

describe("scenarios: the openai-compatible backend", () => {
  let server: OpenaiServer | undefined;
  let cleanup: () => Promise<void> = async () => {};
  afterEach(async () => {
    await server?.close();
    await cleanup();
  });

  it("closer run fixes a failing test by real tool calls against the endpoint: completed, verified, tokens on the receipt", async () => {
    server = await startOpenaiServer({
      apiKey: "sk-scenario",
      usage: { promptTokens: 500, completionTokens: 50 },
    });
    const setup = await makeTaskRepo({
      runner: {
        backend: {
          kind: "openai-compatible",
          baseURL: server.baseURL,
          model: "fake-coder",
          apiKeyEnv: "SCENARIO_API_KEY",
          pricing: { inputPerMTok: 1, outputPerMTok: 4 },
        },
      },
    });
    cleanup = setup.repo.cleanup;
    server.script(FIXING_MODEL);

    const args = ["run", "tasker", "--task", "make add() add", "--no-worktree", "--sandbox", "off"];
    const { code, stdout, stderr } = await runCli([...args, "--json"], setup.repo.dir, {
      ...process.env,
      SCENARIO_API_KEY: "sk-scenario",
      GITHUB_TOKEN: "ghp_not_for_the_model",
    });

    expect(code, stderr).toBe(0);
    const outcome = JSON.parse(stdout) as Record<string, unknown>;
    expect(outcome).toMatchObject({ status: "completed", success: true, iterations: 1 });
    expect(await readFile(`${setup.repo.dir}/src/add.js`, "utf8")).toContain("left + right");
    expect((await setup.repo.git("status", "--porcelain")).stdout).toBe("");
    expect((await setup.repo.git("log", "-1", "--format=%s")).stdout.trim()).toBe("work");

    const requests = server.requests;
    expect(requests).toHaveLength(FIXING_MODEL.length);
    expect(requests[0]?.body.model).toBe("fake-coder");
    expect(requests[0]?.messages.at(-1)?.content).toContain("make add() add");
    expect(toolResult(requests[1], "call_1")).toContain("src/add.js:2:   return left - right;");
    expect(toolResult(requests[3], "call_3")).toBe("edited src/add.js");
    // node --test's summary: TAP's `# pass 2`, or the spec reporter's `ℹ pass 2` (Node 24).
    expect(toolResult(requests[4], "call_4")).toMatch(/^exit code 0\nstdout:\n[\s\S]*[#ℹ] pass 2/);
    expect(toolResult(requests[5], "call_5")).toMatch(/^exit code 0/);
    expect(outcome.costByReason).toMatchObject({
      initial: {
        queries: 1,
        usage: { inputTokens: 3000, outputTokens: 300 },
        costUsd: expect.closeTo(0.0042, 9),
      },
    });
  });

  it("an answer that breaks the step's schema takes a format retry, and the next one completes", async () => {
    server = await startOpenaiServer();
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: { responseFormat: { type: "json", requiredFields: ["status"] } },
      runner: {
        backend: { kind: "openai-compatible", baseURL: server.baseURL, model: "fake-coder" },
      },
    });
    cleanup = setup.repo.cleanup;
    server.script([
      // Declares completion, but its summary is no string.
      { text: JSON.stringify({ ...DONE, summary: 42 }) },
      { text: JSON.stringify(DONE) },
    ]);
    const backend = makeBackend(setup.agent.runner.backend, { agentDir: setup.repo.dir });

    const { result, log } = await runTask(setup, backend);

    expect(log.of("backend-end").map((event) => event.hasStructuredOutput)).toEqual([false, true]);
    expect(log.of("format-check").map((event) => event.valid)).toEqual([false, true]);
    expect(log.of("prompt")[1]).toMatchObject({ kind: "format-retry" });
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    // The retry went on in the same conversation: the wrong answer is in its history.
    const retry = server.requests[1]?.messages.map((message) => message.role);
    expect(retry).toEqual(["system", "user", "assistant", "user"]);
  });

  it("the integrity guards hold: a write to the agent folder is refused, a skipped test is caught, the honest fix completes", async () => {
    server = await startOpenaiServer();
    const setup = await makeTaskRepo({
      runner: {
        backend: { kind: "openai-compatible", baseURL: server.baseURL, model: "fake-coder" },
      },
    });
    cleanup = setup.repo.cleanup;
    const skip = ["adds two numbers", 'test.skip("adds two numbers"'] as const;
    server.script([
      {
        toolCalls: [
          { name: "write", arguments: { path: ".agent/tasker/agent.json", content: "{}" } },
        ],
      },
      {
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: `sed -i 's/test("${skip[0]}"/test.skip("${skip[0]}"/' test/add.test.js && ${COMMIT_ALL}`,
            },
          },
        ],
      },
      { text: JSON.stringify(DONE) },
      {
        toolCalls: [
          {
            name: "edit",
            arguments: {
              path: "test/add.test.js",
              old_string: skip[1],
              new_string: `test("${skip[0]}"`,
            },
          },
          {
            name: "edit",
            arguments: {
              path: "src/add.js",
              old_string: "left - right",
              new_string: "left + right",
            },
          },
        ],
      },
      { toolCalls: [{ name: "bash", arguments: { command: COMMIT_ALL } }] },
      { text: JSON.stringify(DONE) },
    ]);
    const backend = makeBackend(setup.agent.runner.backend, { agentDir: setup.repo.dir });

    const { result, log } = await runTask(setup, backend);

    expect(toolResult(server.requests[1], "call_1")).toMatch(
      /is protected: it defines how closer checks/,
    );
    const caught = log.of("guard").find((event) => !event.valid);
    expect(caught).toMatchObject({ guard: "tests-removed" });
    expect(server.requests[3]?.messages.at(-1)?.content).toContain("adds two numbers");
    expect(result).toMatchObject({ status: "completed", success: true, iterations: 2 });
    expect(await readFile(`${setup.repo.dir}/test/add.test.js`, "utf8")).not.toContain("skip");
  });

  it.skipIf(!sandboxWorks)(
    "with the OS sandbox on, the bash tool runs inside it: a write outside the tree is refused and refutes the declaration",
    async () => {
      server = await startOpenaiServer();
      const setup = await makeTaskRepo({
        runner: {
          backend: { kind: "openai-compatible", baseURL: server.baseURL, model: "fake-coder" },
        },
      });
      cleanup = setup.repo.cleanup;
      const escaping = "echo out > ../escaped-by-the-model.txt";
      server.script([
        { toolCalls: [{ name: "bash", arguments: { command: escaping } }] },
        { text: JSON.stringify(DONE) },
        ...FIXING_MODEL,
      ]);

      const args = [
        "run",
        "tasker",
        "--task",
        "make add() add",
        "--no-worktree",
        "--sandbox",
        "on",
      ];
      const { code, stdout, stderr } = await runCli(
        [...args, "--json"],
        setup.repo.dir,
        process.env,
      );

      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ status: "completed", iterations: 2 });
      expect(toolResult(server.requests[1], "call_1")).toMatch(/^exit code [1-9]/);
      expect(server.requests[2]?.messages.at(-1)?.content).toContain("escaped-by-the-model.txt");
      expect(existsSync(path.join(setup.repo.dir, "..", "escaped-by-the-model.txt"))).toBe(false);
    },
  );
});
