import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BackendCredentials, startBackendCredentials } from "./backend-credentials.js";
import { placeholderFor, withKeysHidden } from "./model-keys.js";

const KEY = "sk-ant-real-secret";
const OPENAI_KEY = "sk-openai-real-secret";

describe("a run's backend credentials", () => {
  let home: string;
  let credentials: BackendCredentials | undefined;
  beforeEach(async () => {
    home = await realpath(await mkdtemp(join(tmpdir(), "closer-credentials-home-")));
    await mkdir(join(home, ".claude/agents"), { recursive: true });
    await writeFile(join(home, ".claude/settings.json"), '{"model":"opus"}');
    await writeFile(join(home, ".claude/agents/reviewer.md"), "# reviewer\n");
    await writeFile(join(home, ".claude/.credentials.json"), '{"claudeAiOauth":{}}');
    await mkdir(join(home, ".claude/projects/old"), { recursive: true });
  });
  afterEach(async () => {
    await credentials?.release();
    credentials = undefined;
    await rm(home, { recursive: true, force: true });
  });

  it("claude-sdk with an API key: the key behind a proxy, a per-run CLAUDE_CONFIG_DIR with the user's settings and no login, removed at release", async () => {
    const env = { HOME: home, PATH: "/bin", ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: OPENAI_KEY };
    credentials = await startBackendCredentials({
      runId: "r1",
      kinds: ["claude-sdk"],
      env,
      home,
    });
    const backendEnv = credentials.envFor("claude-sdk", env);
    expect(JSON.stringify(backendEnv)).not.toContain(KEY);
    expect(JSON.stringify(backendEnv)).not.toContain(OPENAI_KEY);
    expect(backendEnv.ANTHROPIC_API_KEY).toBe(placeholderFor("ANTHROPIC_API_KEY"));
    expect(backendEnv.OPENAI_API_KEY).toBe(placeholderFor("OPENAI_API_KEY"));
    expect(backendEnv.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(credentials.proxyHosts).toEqual([new URL(backendEnv.ANTHROPIC_BASE_URL ?? "").host]);
    const folder = backendEnv.CLAUDE_CONFIG_DIR ?? "";
    expect(credentials.stateFolders).toEqual({ CLAUDE_CONFIG_DIR: folder });
    expect(folder.startsWith(join(home, ".claude"))).toBe(false);
    expect((await readdir(folder)).sort()).toEqual(["agents", "settings.json"]);
    expect(await readFile(join(folder, "agents/reviewer.md"), "utf8")).toBe("# reviewer\n");

    // What the model writes there stays there, and goes with the run.
    await writeFile(join(folder, "settings.json"), '{"hooks":{"planted":true}}');
    await credentials.release();
    credentials = undefined;
    expect(existsSync(folder)).toBe(false);
    expect(await readFile(join(home, ".claude/settings.json"), "utf8")).toBe('{"model":"opus"}');
  });

  it("claude-sdk with no key in the environment (a subscription login): the login file is copied in, no proxy", async () => {
    const env = { HOME: home, PATH: "/bin" };
    credentials = await startBackendCredentials({ runId: "r2", kinds: ["claude-cli"], env, home });
    const backendEnv = credentials.envFor("claude-cli", env);
    expect(backendEnv.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(credentials.proxyHosts).toEqual([]);
    expect(await readdir(backendEnv.CLAUDE_CONFIG_DIR ?? "")).toContain(".credentials.json");
  });

  it("a fresh machine (no ~/.claude): the run's folder is made empty", async () => {
    await rm(join(home, ".claude"), { recursive: true });
    const env = { HOME: home, ANTHROPIC_API_KEY: KEY };
    credentials = await startBackendCredentials({ runId: "r3", kinds: ["claude-sdk"], env, home });
    expect(await readdir(credentials.stateFolders.CLAUDE_CONFIG_DIR ?? "")).toEqual([]);
    expect(existsSync(join(home, ".claude"))).toBe(false);
  });

  it("codex: its key behind a proxy at OPENAI_BASE_URL, a per-run CODEX_HOME; the user's OPENAI_BASE_URL is the proxy's target", async () => {
    await mkdir(join(home, ".codex"));
    await writeFile(join(home, ".codex/config.toml"), 'model = "gpt-5"\n');
    await writeFile(join(home, ".codex/auth.json"), '{"OPENAI_API_KEY":"stored"}');
    const env = {
      HOME: home,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: "https://gw.example/v1",
    };
    credentials = await startBackendCredentials({ runId: "r4", kinds: ["codex"], env, home });
    const backendEnv = credentials.envFor("codex", env);
    expect(backendEnv.OPENAI_API_KEY).toBe(placeholderFor("OPENAI_API_KEY"));
    expect(backendEnv.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(await readdir(backendEnv.CODEX_HOME ?? "")).toEqual(["config.toml"]);
  });
});

describe("withKeysHidden", () => {
  const env = { ANTHROPIC_API_KEY: KEY, CODEX_API_KEY: OPENAI_KEY, PATH: "/bin" };
  const proxies = new Map([["anthropic" as const, "http://127.0.0.1:1"]]);

  it("the openai-compatible backend's tools get placeholders and no proxy", () => {
    expect(withKeysHidden("openai-compatible", env, proxies)).toEqual({
      ANTHROPIC_API_KEY: placeholderFor("ANTHROPIC_API_KEY"),
      CODEX_API_KEY: placeholderFor("CODEX_API_KEY"),
      PATH: "/bin",
    });
  });

  it("opencode and the command backend keep their keys (they call their APIs from their own configuration)", () => {
    expect(withKeysHidden("opencode", env, proxies)).toEqual(env);
    expect(withKeysHidden("command", env, proxies)).toEqual(env);
  });

  it("Claude Code on Bedrock gets no Anthropic proxy, and no key either", () => {
    const bedrock = { ...env, CLAUDE_CODE_USE_BEDROCK: "1" };
    const hidden = withKeysHidden("claude-sdk", bedrock, proxies);
    expect(hidden.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(hidden.ANTHROPIC_API_KEY).toBe(placeholderFor("ANTHROPIC_API_KEY"));
  });
});
