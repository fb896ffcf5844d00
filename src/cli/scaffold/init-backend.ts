import { backendConfigSchema } from "../../definition/agent-file-schema.js";
import { CloserError } from "../../errors.js";
import { BACKEND_KINDS, type BackendKind } from "../../ports/runner-config.js";
import { makeBackendConfig } from "./definition-files.js";
import type { BackendSettings } from "./scaffold-plan.js";

/** The flag that gives each setting. */
const SETTING_FLAGS: Readonly<Record<keyof BackendSettings, string>> = {
  baseURL: "--base-url",
  model: "--model",
  apiKeyEnv: "--api-key-env",
};

/**
 * The backend a scaffold is written for: `--backend`'s kind, or claude-sdk, with the
 * settings given on the command line; a configuration that would not load is refused.
 */
export function initBackend(name: string | undefined, settings: BackendSettings = {}): BackendKind {
  const kind =
    name === undefined ? "claude-sdk" : BACKEND_KINDS.find((candidate) => candidate === name);
  const usable = BACKEND_KINDS.filter(isOffered);
  if (kind === undefined) {
    throw new CloserError("usage_error", `--backend ${JSON.stringify(name)} is not a backend`, {
      expected: `one of ${usable.join(", ")}`,
      found: name,
      fix: `pass --backend with one of ${usable.join(", ")}`,
    });
  }
  const missing = writable(kind, settings);
  if (missing !== undefined) {
    const { flags } = missing;
    throw new CloserError(
      "usage_error",
      `closer init cannot write the ${kind} backend with what it was given: ${missing.message}`,
      {
        fix:
          flags.length > 0
            ? `pass ${flags.join(" and ")} (e.g. closer init <agent> --backend ${kind} --base-url http://localhost:11434/v1 --model qwen2.5-coder)`
            : `init with --backend ${usable[0]}, then set runner.backend in agent.json by hand`,
      },
    );
  }
  return kind;
}

/**
 * Whether `--backend` offers the kind: its scaffold loads, or flags can give what it lacks.
 * scripted is for agents run from code (closer-agent/testing): it is accepted, not offered.
 */
function isOffered(kind: BackendKind): boolean {
  if (kind === "scripted") return false;
  const missing = writable(kind);
  return missing === undefined || missing.flags.length > 0;
}

/**
 * Why the scaffold's configuration of `kind` would not load, naming the flags that give the
 * missing settings; undefined when it loads.
 */
function writable(
  kind: BackendKind,
  settings: BackendSettings = {},
): { readonly message: string; readonly flags: readonly string[] } | undefined {
  const parsed = backendConfigSchema.safeParse(makeBackendConfig(kind, settings));
  if (parsed.success) return undefined;
  const message = parsed.error.issues.map((issue) => issue.message).join("; ");
  const flags = Object.entries(SETTING_FLAGS)
    .filter(([key]) => message.includes(`"${key}"`))
    .map(([, flag]) => flag);
  return { message, flags };
}
