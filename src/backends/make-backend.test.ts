import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeCliSetup,
  fakeCliPath,
  makeRequest,
  setUpFakeCli,
} from "../../test/doubles/fake-cli/fake-cli-harness.js";
import { CloserError } from "../errors.js";
import type { Backend } from "../ports/backend.js";
import type { BackendConfig, BackendKind } from "../ports/runner-config.js";
import { makeBackend } from "./make-backend.js";

function config(kind: BackendKind, extra: Partial<BackendConfig> = {}): BackendConfig {
  return {
    kind,
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    sessionPolicy: "continue",
    settingSources: [],
    ...extra,
  };
}

function configError(make: () => unknown): CloserError {
  try {
    make();
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected a CloserError");
}

describe("makeBackend", () => {
  let agentDir: string;
  let setup: FakeCliSetup;

  beforeEach(async () => {
    agentDir = await mkdtemp(path.join(os.tmpdir(), "closer-agent-"));
    setup = await setUpFakeCli();
  });
  afterEach(async () => {
    await rm(agentDir, { recursive: true, force: true });
    await setup.cleanup();
  });

  it.each([
    ["claude-sdk", {}],
    ["claude-cli", {}],
    ["codex", {}],
    ["opencode", {}],
    ["command", { command: ["./agent.sh"] }],
    ["replay", { replayFrom: "session.json" }],
    ["openai-compatible", { baseURL: "http://127.0.0.1:9/v1", model: "m" }],
  ] as const)("makes the %s backend", (kind, extra) => {
    expect(makeBackend(config(kind, extra), { agentDir, env: {} }).name).toBe(kind);
  });

  it("runs Claude Code from CLOSER_CLAUDE_PATH for the claude-cli backend", async () => {
    await setup.script([{ text: "from the fake" }]);
    const backend = makeBackend(
      config("claude-cli", { claudePath: "/nowhere/claude", maxTurns: 4 }),
      {
        agentDir,
        env: { PATH: process.env.PATH, CLOSER_CLAUDE_PATH: fakeCliPath("claude") },
      },
    );
    const response = await backend.query(makeRequest(setup));
    expect(response.text).toBe("from the fake");
    const [call] = await setup.log();
    expect(call?.argv[call.argv.indexOf("--max-turns") + 1]).toBe("4");
  });

  it.each([
    ["codex", "codex"],
    ["opencode", "opencode"],
  ] as const)("runs the %s backend's configured command", async (kind, fake) => {
    await setup.script([{ text: "answer" }]);
    const backend = makeBackend(config(kind, { command: [fakeCliPath(fake)] }), { agentDir });
    expect((await backend.query(makeRequest(setup))).text).toBe("answer");
  });

  it("resolves a ./ command and the replay source from the agent folder", async () => {
    const script = path.join(agentDir, "bin", "agent.sh");
    await mkdir(path.dirname(script));
    await writeFile(script, '#!/bin/sh\necho "answered from the agent folder"\n');
    await chmod(script, 0o755);
    const command = makeBackend(config("command", { command: ["./bin/agent.sh"] }), { agentDir });
    expect((await command.query(makeRequest(setup))).text.trim()).toBe(
      "answered from the agent folder",
    );

    await writeFile(
      path.join(agentDir, "session.json"),
      JSON.stringify({ turns: [{ text: "replayed", files: { "out.txt": "x" } }] }),
    );
    const replay = makeBackend(config("replay", { replayFrom: "session.json" }), { agentDir });
    expect((await replay.query(makeRequest(setup))).text).toBe("replayed");
    expect(await readFile(path.join(setup.cwd, "out.txt"), "utf8")).toBe("x");
  });

  it("says which kinds enforce the output schema; a command does when it reads the schema", () => {
    const make = (kind: BackendKind, extra: Partial<BackendConfig> = {}) =>
      makeBackend(config(kind, { command: ["agent"], replayFrom: "run", ...extra }), { agentDir })
        .enforcesSchema;
    expect(make("claude-sdk")).toBe(true);
    expect(make("claude-cli", { command: ["claude"] })).toBe(true);
    expect(make("codex")).toBe(true);
    expect(make("replay")).toBe(true);
    expect(make("openai-compatible", { baseURL: "http://127.0.0.1:9/v1", model: "m" })).toBe(true);
    expect(make("opencode")).toBe(false);
    expect(make("command")).toBe(false);
    expect(make("command", { readsOutputSchema: true })).toBe(true);
  });

  it("hands out the scripted backend it was given", () => {
    const scripted: Backend = {
      name: "scripted",
      enforcesSchema: true,
      query: async () => ({}) as never,
    };
    expect(makeBackend(config("scripted"), { agentDir, scripted })).toBe(scripted);
    expect(configError(() => makeBackend(config("scripted"), { agentDir })).code).toBe(
      "config_error",
    );
  });

  it("rejects an unknown kind, naming the setting and the kinds it knows", () => {
    const error = configError(() => makeBackend(config("gemini" as BackendKind), { agentDir }));
    expect(error.code).toBe("config_error");
    expect(error.fields.jsonPath).toBe("runner.backend.kind");
    expect(error.fields.found).toBe('"gemini"');
    expect(error.fields.fix).toContain("claude-sdk");
  });

  it("asks for the command of the command backend and the source of the replay backend", () => {
    const noCommand = configError(() => makeBackend(config("command"), { agentDir }));
    expect(noCommand.fields.jsonPath).toBe("runner.backend.command");
    const noSource = configError(() => makeBackend(config("replay"), { agentDir }));
    expect(noSource.fields.jsonPath).toBe("runner.backend.replayFrom");
  });

  it("asks for the endpoint and the model of the openai-compatible backend", () => {
    const noUrl = configError(() =>
      makeBackend(config("openai-compatible", { model: "m" }), { agentDir }),
    );
    expect(noUrl.fields.jsonPath).toBe("runner.backend.baseURL");
    const noModel = configError(() =>
      makeBackend(config("openai-compatible", { baseURL: "http://127.0.0.1:9/v1" }), { agentDir }),
    );
    expect(noModel.fields.jsonPath).toBe("runner.backend.model");
    expect(noModel.message).toContain('needs "model"');
  });
});
