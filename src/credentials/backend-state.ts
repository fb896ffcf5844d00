/**
 * The backend's state folder, per run (docs/integrity.md#credentials): where
 * closer's environment names none, Claude Code's `CLAUDE_CONFIG_DIR` and
 * codex's `CODEX_HOME` point to a folder closer makes for the run, with a
 * copy of what the user's settings and login need; the user's own folder
 * (`~/.claude`, `~/.codex`) is only read, and nothing the model writes in
 * the run's survives it (the folder is removed when the run ends).
 */
import { constants } from "node:fs";
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BackendKind } from "../ports/runner-config.js";
import type { KeyFamily } from "./model-keys.js";

/** The agent CLIs whose state folder is per run. */
export type StateKind = "claude" | "codex";

export interface StateFolder {
  /** The variable that moves the CLI's state folder. */
  readonly variable: string;
  /** Where the state folder is when the variable is unset, in the user's home. */
  readonly inHome: string;
  /** The user's settings, copied in when present. */
  readonly settings: readonly string[];
  /**
   * The login a CLI keeps in its folder, copied in only when no key of the environment stands
   * for it (a key goes through the key proxy instead).
   */
  readonly login: readonly string[];
  /** The API whose key makes the login file unneeded. */
  readonly family: KeyFamily;
}

export const STATE_FOLDERS: Readonly<Record<StateKind, StateFolder>> = {
  claude: {
    variable: "CLAUDE_CONFIG_DIR",
    inHome: ".claude",
    settings: ["settings.json", "CLAUDE.md", "agents", "commands", "skills"],
    login: [".credentials.json"],
    family: "anthropic",
  },
  codex: {
    variable: "CODEX_HOME",
    inHome: ".codex",
    settings: ["config.toml", "AGENTS.md"],
    login: ["auth.json"],
    family: "openai",
  },
};

/** The CLI whose state folder a backend kind uses, if closer gives it one per run. */
export function stateKindOf(kind: BackendKind): StateKind | undefined {
  if (kind === "claude-sdk" || kind === "claude-cli") return "claude";
  return kind === "codex" ? "codex" : undefined;
}

/** The user's own state folder of `state`: its variable in `env`, else its place in `home`. */
export function userStateFolder(
  state: StateKind,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): string {
  const folder = STATE_FOLDERS[state];
  return env[folder.variable] ?? join(home, folder.inHome);
}

/**
 * Makes `target` and copies into it, from the user's folder `source`, the settings of
 * `state` and, when `withLogin`, its login files. What is missing is skipped.
 */
export async function makeRunStateFolder(
  state: StateKind,
  source: string,
  target: string,
  withLogin: boolean,
): Promise<void> {
  const folder = STATE_FOLDERS[state];
  await mkdir(target, { recursive: true, mode: 0o700 });
  const names = [...folder.settings, ...(withLogin ? folder.login : [])];
  for (const name of names) {
    await cp(join(source, name), join(target, name), {
      recursive: true,
      dereference: true,
      errorOnExist: false,
      mode: constants.COPYFILE_FICLONE,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}
