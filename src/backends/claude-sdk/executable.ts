/**
 * Where the Claude Code executable is: CLOSER_CLAUDE_PATH, else the path from
 * agent.json, else the native binary of the SDK's optional platform package.
 * Missing is a configuration error that says how to fix it.
 */
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import type { BackendError } from "../../ports/backend.js";
import { makeBackendError } from "../backend-errors.js";

const SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

export interface ResolveClaudeExecutableOptions {
  /** The environment closer runs in (CLOSER_CLAUDE_PATH is read from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `backend.claudePath` from agent.json. */
  readonly claudePath?: string;
  /** Finds the native binary of the optional platform package; undefined when not installed. */
  readonly findNativeExecutable: () => string | undefined;
}

export type ResolvedClaudeExecutable =
  | { readonly path: string; readonly error?: undefined }
  | { readonly path?: undefined; readonly error: BackendError };

/** The platform packages the SDK looks for, in the order it tries them. */
export function nativePackageNames(
  platform: string = process.platform,
  arch: string = process.arch,
): string[] {
  if (platform !== "linux") return [`${SDK_PACKAGE}-${platform}-${arch}`];
  const header = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } };
  const isMusl = header?.header?.glibcVersionRuntime === undefined;
  const glibc = `${SDK_PACKAGE}-linux-${arch}`;
  const musl = `${SDK_PACKAGE}-linux-${arch}-musl`;
  return isMusl ? [musl, glibc] : [glibc, musl];
}

/** The native Claude Code binary shipped in the SDK's optional platform package, when installed. */
export function findNativeClaudeExecutable(): string | undefined {
  const fromHere = createRequire(import.meta.url);
  let fromSdk: NodeJS.Require;
  try {
    fromSdk = createRequire(fromHere.resolve(SDK_PACKAGE));
  } catch {
    return undefined;
  }
  const binary = process.platform === "win32" ? "claude.exe" : "claude";
  for (const name of nativePackageNames()) {
    try {
      return fromSdk.resolve(`${name}/${binary}`);
    } catch {
      // not installed; try the next one
    }
  }
  return undefined;
}

async function isUsable(path: string): Promise<boolean> {
  const isScript = /\.(?:js|mjs|cjs)$/.test(path);
  try {
    await access(path, isScript ? constants.R_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function resolveClaudeExecutable(
  options: ResolveClaudeExecutableOptions,
): Promise<ResolvedClaudeExecutable> {
  const fromEnv = options.env.CLOSER_CLAUDE_PATH?.trim();
  const configured = fromEnv || options.claudePath;
  if (configured) {
    if (await isUsable(configured)) return { path: configured };
    const source = fromEnv ? "CLOSER_CLAUDE_PATH" : "backend.claudePath in agent.json";
    return {
      error: makeBackendError(
        "config",
        `the Claude Code executable ${configured} (from ${source}) does not exist or is not executable; ` +
          `fix ${source}, or unset it to use the native binary of ${nativePackageNames()[0]}`,
      ),
    };
  }
  const native = options.findNativeExecutable();
  if (native) return { path: native };
  return {
    error: makeBackendError(
      "config",
      `the Claude Code executable was not found: the optional package ${nativePackageNames()[0]} ` +
        "is not installed. Run `npm install` with optional dependencies (not --omit=optional), " +
        "or set CLOSER_CLAUDE_PATH to a Claude Code executable.",
    ),
  };
}
