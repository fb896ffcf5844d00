/**
 * Test setup for the fake agent CLIs: a temp working tree, a script, a turn
 * counter and a log, plus the environment that points the fakes at them.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BackendRequest } from "../../../src/ports/backend.js";

export { isProcessAlive as isAlive } from "../fake-claude/process-liveness.js";

export type FakeCliName = "claude" | "codex" | "opencode" | "agent-command";

/** One turn of a fake CLI script; see fake-cli.mjs for what each field does. */
export interface FakeCliTurn {
  readonly text?: string;
  readonly structuredOutput?: unknown;
  readonly files?: Readonly<Record<string, string | null>>;
  readonly tools?: readonly string[];
  readonly sessionId?: string;
  readonly costUsd?: number;
  readonly usage?: Partial<{
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheCreationTokens: number;
  }>;
  readonly delayMs?: number;
  /** Shell commands the model runs before answering; their outcomes are logged. */
  readonly commands?: readonly string[];
  readonly fail?:
    | "rate_limit"
    | "overloaded"
    | "server_error"
    | "connection_reset"
    | "connection_refused"
    | "auth"
    | "max_turns"
    | "session_expired"
    | "crash"
    | "hang";
  readonly retryAfterSeconds?: number;
  /** The model call of the CLI's own configuration (provider-call.mjs). */
  readonly callModel?: true | { readonly retries?: number; readonly url?: string };
  readonly exitCode?: number;
  readonly stderr?: string;
}

/** What one fake CLI process recorded about how it was called. */
export interface FakeCliLogEntry {
  readonly cli: FakeCliName;
  readonly argv: string[];
  readonly stdin: string;
  readonly cwd: string;
  readonly pid: number;
  readonly turn: number;
  readonly env: Record<string, string>;
  readonly schema?: unknown;
  readonly childPid?: number;
  readonly modelCall?: {
    readonly status?: number;
    readonly body?: string;
    readonly error?: string;
    readonly attempts?: number;
    readonly url?: string;
    readonly failed?: string;
  };
  readonly commands?: readonly { command: string; exitCode: number | null; stderr: string }[];
}

export interface FakeCliSetup {
  /** The working tree of the queries. */
  readonly cwd: string;
  /** Where the fakes keep their script, state and log: a backend's own state folder. */
  readonly stateDir: string;
  /** Environment that points the fakes at this setup's script, state and log. */
  readonly env: Record<string, string>;
  /** Replace the script (and restart the turn counter). */
  script(turns: readonly FakeCliTurn[]): Promise<void>;
  log(): Promise<FakeCliLogEntry[]>;
  cleanup(): Promise<void>;
}

const FAKE_CLI_DIR = path.dirname(fileURLToPath(import.meta.url));

export function fakeCliPath(cli: FakeCliName): string {
  return path.join(FAKE_CLI_DIR, cli);
}

export async function setUpFakeCli(): Promise<FakeCliSetup> {
  const root = await mkdtemp(path.join(os.tmpdir(), "closer-fake-cli-"));
  const cwd = path.join(root, "work");
  // The fakes keep their files where each CLI keeps its own state, the one place outside the
  // tree the OS sandbox lets that backend write (docs/sandbox.md#policy): Claude Code's config
  // folder, CODEX_HOME, opencode's data folder under XDG_DATA_HOME.
  const stateDir = path.join(root, "opencode");
  await mkdir(cwd);
  await mkdir(stateDir);
  const files = {
    script: path.join(stateDir, "script.json"),
    state: path.join(stateDir, "state"),
    log: path.join(stateDir, "log.jsonl"),
  };
  await writeFile(files.script, JSON.stringify({ turns: [{}] }));
  return {
    cwd,
    stateDir,
    env: {
      FAKE_CLI_SCRIPT: files.script,
      FAKE_CLI_STATE: files.state,
      FAKE_CLI_LOG: files.log,
      CLAUDE_CONFIG_DIR: stateDir,
      CODEX_HOME: stateDir,
      XDG_DATA_HOME: root,
    },
    async script(turns) {
      await writeFile(files.script, JSON.stringify({ turns }));
      await rm(files.state, { force: true });
    },
    async log() {
      const text = await readFile(files.log, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as FakeCliLogEntry);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** A request with harmless defaults, pointed at the setup's working tree and environment. */
export function makeRequest(
  setup: Pick<FakeCliSetup, "cwd" | "env">,
  overrides: Partial<BackendRequest> = {},
): BackendRequest {
  return {
    prompt: "Do the task.",
    cwd: setup.cwd,
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    ...overrides,
    env: { ...setup.env, ...overrides.env },
  };
}

/** Polls until the condition holds; fails after `timeoutMs`. */
export async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
