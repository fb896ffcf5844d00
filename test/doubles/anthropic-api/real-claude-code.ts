/**
 * What a run needs to drive the real Claude Code (the native binary of the
 * SDK's platform package) against the scripted Anthropic API and nothing
 * else: the server as ANTHROPIC_BASE_URL, a made-up API key, a private HOME
 * and CLAUDE_CONFIG_DIR (the user's login and settings are neither read nor
 * written), no nonessential traffic, and the server as the HTTP(S) proxy, so
 * a call home would show up in its log as a CONNECT instead of leaving the
 * machine. Every variable passes closer's environment policy for the backend
 * as it is (docs/backends.md#environment): `ANTHROPIC_*`, `CLAUDE_*`, `HOME`,
 * `TMPDIR` and the proxy settings need no grant.
 */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNativeClaudeExecutable } from "../../../src/backends/claude-sdk/executable.js";
import type { AnthropicApi } from "./anthropic-api.js";

/** The native Claude Code binary the SDK would start, when its platform package is installed. */
export function findRealClaudeCode(): string | undefined {
  return findNativeClaudeExecutable();
}

/** The API key the binary sends; the scripted server accepts any. */
export const SCRIPTED_API_KEY = "sk-ant-scripted-0000";

export interface RealClaudeCodeOptions {
  /** The Claude Code binary; CLOSER_CLAUDE_PATH is set to it. */
  readonly executablePath: string;
  /** The model the agent asks for; a known one, so Claude Code prices the usage. */
  readonly model?: string;
}

export interface RealClaudeCodeSetup {
  /** closer's environment for the run (nothing of the caller's own but `PATH`). */
  readonly env: Readonly<Record<string, string>>;
  /** agent.json `runner` fields: the claude-sdk backend and its model. */
  readonly runner: {
    readonly backend: { readonly kind: "claude-sdk"; readonly model: string };
  };
  /** The private HOME; Claude Code's config folder is `.claude` in it. */
  readonly homeDir: string;
  readonly configDir: string;
  cleanup(): Promise<void>;
}

export async function makeRealClaudeCodeSetup(
  api: AnthropicApi,
  options: RealClaudeCodeOptions,
): Promise<RealClaudeCodeSetup> {
  const homeDir = await realpath(await mkdtemp(join(tmpdir(), "closer-claude-home-")));
  const configDir = join(homeDir, ".claude");
  const tempDir = join(homeDir, "tmp");
  await mkdir(configDir);
  await mkdir(tempDir);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: homeDir,
    TMPDIR: tempDir,
    CLAUDE_CONFIG_DIR: configDir,
    CLOSER_CLAUDE_PATH: options.executablePath,
    ANTHROPIC_BASE_URL: api.baseUrl,
    ANTHROPIC_API_KEY: SCRIPTED_API_KEY,
    // Also turns off telemetry, error reporting and the auto-updater: with it, a run makes no CONNECT.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HTTP_PROXY: api.baseUrl,
    HTTPS_PROXY: api.baseUrl,
    NO_PROXY: "127.0.0.1,localhost",
  };
  return {
    env,
    runner: { backend: { kind: "claude-sdk", model: options.model ?? "claude-sonnet-4-5" } },
    homeDir,
    configDir,
    cleanup: () => rm(homeDir, { recursive: true, force: true }),
  };
}
