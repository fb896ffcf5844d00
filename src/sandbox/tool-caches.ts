/**
 * The toolchains' caches inside the OS sandbox (docs/sandbox.md#caches): the user's own are
 * read-only there, and a cache the model's processes and the checks shared would let the model
 * forge a check's result (Go caches test results). So the model's processes get caches of the
 * run's own, and every check gets empty ones of its own, which no process of the model's can
 * write; the user's stay read-only to both.
 */
import { existsSync, readFileSync } from "node:fs";
import { chmod, lstat, mkdir, readdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { ProcessKind } from "../ports/process.js";

/** Each cache's variable and the folder it is given in a kind's cache folder. */
const CACHE_FOLDERS: Readonly<Record<string, string>> = {
  GOCACHE: "go-build",
  npm_config_cache: "npm",
  PIP_CACHE_DIR: "pip",
  UV_CACHE_DIR: "uv",
  CARGO_HOME: "cargo",
};

/** Only the model's processes get modules of their own; the checks read the user's (read-only). */
const MODEL_ONLY_FOLDERS: Readonly<Record<string, string>> = { GOMODCACHE: "go-mod" };

/** cargo's settings, read from the user's cargo home; its credentials are not. */
const CARGO_SETTINGS = ["config.toml", "config"];

/** The user's own places the seeds are read from. */
export interface UserToolchain {
  readonly home: string;
  /** The environment the kind's processes get (its CARGO_HOME, GOPATH, GOMODCACHE). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The variables that point a kind's tools at its cache folder `folder`. A variable the launch
 * already sets (the agent passed it: `runner.env`, a validator's `env`) wins, in any case.
 */
export function cacheVariables(
  kind: ProcessKind,
  folder: string,
  user: UserToolchain,
): Record<string, string> {
  const folders = kind === "backend" ? { ...CACHE_FOLDERS, ...MODEL_ONLY_FOLDERS } : CACHE_FOLDERS;
  const env: Record<string, string> = {};
  for (const [name, sub] of Object.entries(folders)) env[name] = join(folder, sub);
  const proxy = kind === "backend" ? goProxyFromUserModules(user) : undefined;
  if (proxy !== undefined) env.GOPROXY = proxy;
  return env;
}

/** `defaults` without the names `env` already holds, compared as npm and Windows do: in any case. */
export function notSetIn(
  defaults: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const set = new Set(
    Object.entries(env)
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name.toLowerCase()),
  );
  return Object.fromEntries(
    Object.entries(defaults).filter(([name]) => !set.has(name.toLowerCase())),
  );
}

/** The user's module downloads, which Go reads as a proxy and verifies against go.sum. */
function userModuleCache(user: UserToolchain): string {
  const gopath = (user.env.GOPATH ?? join(user.home, "go")).split(":")[0] ?? "";
  return user.env.GOMODCACHE ?? join(gopath, "pkg", "mod");
}

/**
 * The model's module cache starts empty; Go fills it from the user's module downloads first
 * (read-only, verified against go.sum like any download), then from the proxy the user
 * configured (`go env -w GOPROXY=…`) or Go's default. Undefined when there is nothing to read
 * or the user turned the network proxy off.
 */
function goProxyFromUserModules(user: UserToolchain): string | undefined {
  if (user.env.GOPROXY !== undefined) return undefined;
  const downloads = join(userModuleCache(user), "cache", "download");
  if (!existsSync(downloads)) return undefined;
  const configured = readGoEnvFile(user).GOPROXY ?? "https://proxy.golang.org,direct";
  if (configured === "off") return undefined;
  return `file://${downloads},${configured}`;
}

/** The settings `go env -w` keeps (`$GOENV`, else `<config>/go/env`). */
function readGoEnvFile(user: UserToolchain): Record<string, string> {
  const config = user.env.XDG_CONFIG_HOME ?? join(user.home, ".config");
  const file = user.env.GOENV ?? join(config, "go", "env");
  try {
    return Object.fromEntries(
      readFileSync(file, "utf8")
        .split("\n")
        .map((line) => line.split("="))
        .filter((parts) => parts.length >= 2 && parts[0] !== "")
        .map(([name = "", ...value]) => [name.trim(), value.join("=").trim()]),
    );
  } catch {
    return {};
  }
}

/** Makes a kind's cache folder: each cache's, and cargo's home with the user's settings linked in. */
export async function makeCacheFolder(folder: string, user: UserToolchain): Promise<void> {
  const cargoHome = join(folder, CACHE_FOLDERS.CARGO_HOME ?? "cargo");
  await mkdir(cargoHome, { recursive: true });
  const userCargo = user.env.CARGO_HOME ?? join(user.home, ".cargo");
  for (const name of CARGO_SETTINGS) {
    const settings = join(userCargo, name);
    if (!(await exists(settings))) continue;
    await symlink(settings, join(cargoHome, name)).catch(() => undefined);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes a cache folder, Go's read-only module folders included. */
export async function removeCacheFolder(folder: string): Promise<void> {
  try {
    await rm(folder, { recursive: true, force: true });
  } catch {
    await makeWritable(folder);
    await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function makeWritable(folder: string): Promise<void> {
  try {
    const found = await lstat(folder);
    if (!found.isDirectory()) return;
    await chmod(folder, 0o755);
    for (const entry of await readdir(folder)) await makeWritable(join(folder, entry));
  } catch {
    // gone, or not ours: rm says what is left
  }
}
