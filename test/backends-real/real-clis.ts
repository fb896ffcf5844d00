/**
 * The real agent CLIs of the conformance suite: where the installed pinned
 * versions are (scripts/install-backend-clis.mjs puts them there), whether
 * they start here, and the configuration that points each at a scripted
 * model server on loopback instead of a provider.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCommand } from "../../src/process/shell-command.js";
import clis from "./clis.json" with { type: "json" };

export type RealCliName = keyof typeof clis;

export const BACKENDS_CACHE =
  process.env.CLOSER_BACKENDS_CACHE ?? path.join(os.homedir(), ".cache", "closer-backends");

export type RealCli =
  | {
      readonly ok: true;
      readonly name: RealCliName;
      readonly path: string;
      readonly version: string;
    }
  | { readonly ok: false; readonly name: RealCliName; readonly reason: string };

/** The installed CLI, or why it cannot be used here (not installed, does not start). */
export async function findRealCli(name: RealCliName): Promise<RealCli> {
  const { package: pkg, version, bin } = clis[name];
  const executable = path.join(BACKENDS_CACHE, `${name}-${version}`, "node_modules", ".bin", bin);
  if (!existsSync(executable)) {
    return {
      ok: false,
      name,
      reason: `${pkg}@${version} is not installed in ${BACKENDS_CACHE} (npm run test:backends installs it)`,
    };
  }
  const result = await runCommand({
    command: [executable, "--version"],
    cwd: os.tmpdir(),
    env: { HOME: path.join(BACKENDS_CACHE, `${name}-home`) },
    timeoutMs: 60_000,
  });
  if (result.exitCode !== 0 || !result.stdout.includes(version)) {
    const detail = (result.stderr || result.stdout).trim().slice(-300);
    return {
      ok: false,
      name,
      reason: `${pkg}@${version} does not start here (exit ${result.exitCode}): ${detail}`,
    };
  }
  return { ok: true, name, path: executable, version };
}

/**
 * Environment for `codex exec` against `baseUrl`: a private CODEX_HOME whose
 * config.toml names a provider speaking the Responses API.
 */
export async function codexEnv(root: string, baseUrl: string): Promise<Record<string, string>> {
  const home = path.join(root, "codex-home");
  await mkdir(home, { recursive: true });
  await writeFile(
    path.join(home, "config.toml"),
    [
      'model = "scripted"',
      'model_provider = "scripted"',
      "[model_providers.scripted]",
      'name = "scripted"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "CLOSER_SCRIPTED_MODEL_KEY"',
      "",
    ].join("\n"),
  );
  return { CODEX_HOME: home, CLOSER_SCRIPTED_MODEL_KEY: "scripted" };
}

/**
 * Environment for `opencode run` against `baseUrl`: a config with the
 * provider (and a second server for the session-title request), auto-update,
 * model fetch, default plugins, LSP download and sharing off, and a private
 * HOME kept in the cache folder, so the provider package opencode installs at
 * runtime is downloaded once.
 */
export async function opencodeEnv(
  root: string,
  baseUrl: string,
  titleBaseUrl: string,
): Promise<Record<string, string>> {
  const home = path.join(BACKENDS_CACHE, "opencode-home");
  await mkdir(home, { recursive: true });
  const provider = (url: string) => ({
    npm: "@ai-sdk/openai-compatible",
    name: "scripted",
    options: { baseURL: url, apiKey: "scripted" },
    models: { scripted: { name: "scripted" } },
  });
  const configFile = path.join(root, "opencode.json");
  await writeFile(
    configFile,
    JSON.stringify({
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: "scripted/scripted",
      small_model: "titles/scripted",
      plugin: [],
      lsp: false,
      provider: { scripted: provider(baseUrl), titles: provider(titleBaseUrl) },
    }),
  );
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    OPENCODE_CONFIG: configFile,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  };
}
