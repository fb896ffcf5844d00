/**
 * Test-side handle of the fake Claude Code executable: writes its script,
 * points it at a temp folder, and reads back what each process received.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** How a turn ends. */
export type FakeClaudeOutcome =
  /** Assistant text, structured output when `--json-schema` was given, a success result. */
  | "success"
  /** `api_retry` messages (429), an assistant message with `error: "rate_limit"`, an error result with `api_error_status: 429`. */
  | "rate_limit"
  /**
   * The API answers 529 overloaded: `api_retry` messages, an assistant message with
   * `error: "server_error"` and the text `API Error: 529 {…"overloaded_error"…}`, an
   * error result with `api_error_status: 529` (what Claude Code sends; `assistantError`
   * changes the field).
   */
  | "overloaded"
  /** The same with 500 and `API Error: 500 {…"Internal server error"…}`. */
  | "server_error"
  /** The same with 503 and `API Error: 503 no healthy upstream`. */
  | "service_unavailable"
  /**
   * The API cannot be reached: `api_retry` messages without a status, an assistant message
   * with `error: "unknown"` and `API Error: Unable to connect to API (ECONNRESET)`, an
   * error result with `api_error_status: null`.
   */
  | "connection_reset"
  /** The same with `ECONNREFUSED`. */
  | "connection_refused"
  /** An assistant message with `error: "authentication_failed"` and an error result (401). */
  | "auth"
  /** A result of subtype `error_max_turns`. */
  | "max_turns"
  /** A result of subtype `error_max_budget_usd`. */
  | "max_budget"
  /** A result of subtype `error_during_execution` with `errorMessage`. */
  | "execution_error"
  /** A result of subtype `error_max_structured_output_retries`. */
  | "structured_output_retries"
  /** "No conversation found with session ID: …" on stderr and exit 1, before any message. */
  | "session_not_found"
  /** Starts a `sleep 3600` child and never answers, even when stdin closes. */
  | "hang"
  /** Writes `errorMessage` to stderr and exits 2 without a result. */
  | "crash";

/** Something the "model" does before the turn ends. */
export type FakeClaudeAction =
  | { readonly text: string }
  /**
   * A tool use. It goes through the PreToolUse hooks, the permission rules and mode,
   * and a `can_use_tool` prompt when the SDK offers one; if allowed it really runs in
   * the working directory: `Bash` {command}, `Write` {file_path, content},
   * `Edit` {file_path, old_string, new_string}, `Read` {file_path}; other tools answer "ok".
   */
  | { readonly tool: string; readonly input?: Readonly<Record<string, unknown>> };

/** One scripted turn: the answer to one user message. Turns are consumed in order across processes. */
export interface FakeClaudeTurn {
  readonly outcome?: FakeClaudeOutcome;
  readonly actions?: readonly FakeClaudeAction[];
  /** Sent as the `StructuredOutput` tool input and `structured_output` (only when a schema was passed). */
  readonly structuredOutput?: unknown;
  /** Final assistant text and `result` (default "Done.", or the structured output as JSON). */
  readonly text?: string;
  /** Session id of a new session (default: a random UUID; a resumed session keeps its id). */
  readonly sessionId?: string;
  /** This turn's cost; the result carries the session's running total (default 0.01, 0 on errors). */
  readonly costUsd?: number;
  /** This turn's tokens in API field names; `modelUsage` carries the session's running totals. */
  readonly usage?: Readonly<Record<string, number>>;
  /** The assistant message's `error` field of an API failure (default: what Claude Code sends). */
  readonly assistantError?: string;
  /** `api_retry` messages before the outcome (default 2 for API failures other than auth, else 0). */
  readonly apiRetries?: number;
  /** HTTP status of the `api_retry` messages of a success turn (default 429). */
  readonly retryStatus?: number;
  /** Emits a rejected `rate_limit_event` with this reset time (epoch seconds). */
  readonly resetsAt?: number;
  readonly errorMessage?: string;
  /** Waits this long after the user message before answering. */
  readonly delayMs?: number;
}

/** The options the fake read from its command line. */
export interface FakeClaudeOptions {
  readonly print: boolean;
  readonly inputFormat: string;
  readonly outputFormat: string;
  readonly model?: string;
  readonly resume?: string;
  readonly jsonSchema?: unknown;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: string;
  readonly permissionPromptTool?: string;
  readonly settingSources?: readonly string[];
  readonly maxTurns?: number;
  readonly appendSystemPrompt?: string;
  readonly systemPrompt?: string;
}

/** A permission decision the fake got for a tool use. */
export interface FakeClaudePermission {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly behavior: "allow" | "deny";
  readonly message?: string;
  /** Who decided: `hook`, `can_use_tool`, `rule`, `mode`, `read-only`, `no-prompt`. */
  readonly via: string;
}

/** What one process of the fake received and did. */
export interface FakeClaudeInvocation {
  /** Its pid as it saw it: in closer's OS sandbox, a pid of the sandbox's own namespace. */
  readonly pid: number;
  /** closer's mark on its process group: what finds it, and what it started, from outside. */
  readonly mark: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly options: FakeClaudeOptions;
  /** Values of the recorded variables (null when unset). */
  readonly env: Readonly<Record<string, string | null>>;
  /** Names of every variable in its environment. */
  readonly envKeys: readonly string[];
  /** The SDK's `initialize` control request (hooks, jsonSchema, appendSystemPrompt, …). */
  readonly initialize?: Readonly<Record<string, unknown>>;
  readonly prompts: readonly string[];
  readonly turns: readonly { index: number | null; sessionId: string; outcome: string }[];
  readonly permissions: readonly FakeClaudePermission[];
  /** Processes it started (Bash commands, the `hang` child). */
  readonly childPids: readonly number[];
  readonly exitCode?: number;
}

export interface FakeClaude {
  /** The native-looking executable (a shell wrapper); pass it as the Claude Code path. */
  readonly executablePath: string;
  /** The same fake as a JavaScript file (the SDK runs it with node). */
  readonly scriptExecutablePath: string;
  /** Variables that point the fake at this instance's script, state and log. */
  readonly env: Readonly<Record<string, string>>;
  readonly dir: string;
  /** Replaces the script; the next process starts at its first turn. Known sessions are kept. */
  script(turns: readonly FakeClaudeTurn[]): Promise<void>;
  invocations(): Promise<FakeClaudeInvocation[]>;
  cleanup(): Promise<void>;
}

const HERE = fileURLToPath(new URL(".", import.meta.url));

interface LogRecord {
  event: string;
  pid: number;
  instance: string;
  mark: string;
  [field: string]: unknown;
}

function emptyInvocation(record: LogRecord): FakeClaudeInvocation {
  return {
    pid: record.pid,
    mark: record.mark,
    argv: record.argv as string[],
    cwd: record.cwd as string,
    options: record.options as FakeClaudeOptions,
    env: record.env as Record<string, string | null>,
    envKeys: record.envKeys as string[],
    prompts: [],
    turns: [],
    permissions: [],
    childPids: [],
  };
}

function addRecord(invocation: FakeClaudeInvocation, record: LogRecord): FakeClaudeInvocation {
  switch (record.event) {
    case "control_request":
      return record.subtype === "initialize"
        ? { ...invocation, initialize: record.request as Record<string, unknown> }
        : invocation;
    case "user":
      return { ...invocation, prompts: [...invocation.prompts, record.prompt as string] };
    case "turn": {
      const turn = {
        index: record.index as number | null,
        sessionId: record.sessionId as string,
        outcome: record.outcome as string,
      };
      return { ...invocation, turns: [...invocation.turns, turn] };
    }
    case "permission":
      return {
        ...invocation,
        permissions: [...invocation.permissions, record as unknown as FakeClaudePermission],
      };
    case "child":
      return { ...invocation, childPids: [...invocation.childPids, record.childPid as number] };
    case "exit":
      return { ...invocation, exitCode: record.code as number };
    default:
      return invocation;
  }
}

/** Groups the log by process, in start order. */
export function parseFakeClaudeLog(text: string): FakeClaudeInvocation[] {
  const byInstance = new Map<string, FakeClaudeInvocation>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as LogRecord;
    const known = byInstance.get(record.instance);
    if (record.event === "start") byInstance.set(record.instance, emptyInvocation(record));
    else if (known) byInstance.set(record.instance, addRecord(known, record));
  }
  return [...byInstance.values()];
}

export async function makeFakeClaude(
  options: { readonly recordEnv?: readonly string[] } = {},
): Promise<FakeClaude> {
  const dir = await mkdtemp(join(tmpdir(), "closer-fake-claude-"));
  const scriptPath = join(dir, "script.json");
  const statePath = join(dir, "state.json");
  const logPath = join(dir, "log.jsonl");
  await writeFile(scriptPath, "[]");
  return {
    executablePath: join(HERE, "claude"),
    scriptExecutablePath: join(HERE, "fake-claude.mjs"),
    dir,
    env: {
      // Its files are in its config folder, as Claude Code keeps its own: the one place outside
      // the tree the OS sandbox lets a Claude backend write (docs/sandbox.md#policy).
      CLAUDE_CONFIG_DIR: dir,
      FAKE_CLAUDE_SCRIPT: scriptPath,
      FAKE_CLAUDE_STATE: statePath,
      FAKE_CLAUDE_LOG: logPath,
      FAKE_CLAUDE_RECORD_ENV: (options.recordEnv ?? ["CLOSER_CHECK_ID"]).join(","),
    },
    async script(turns) {
      await writeFile(scriptPath, JSON.stringify(turns, null, 2));
      const state = await readFile(statePath, "utf8").then(JSON.parse, () => ({ sessions: {} }));
      await writeFile(statePath, JSON.stringify({ ...state, nextTurn: 0 }));
    },
    async invocations() {
      return parseFakeClaudeLog(await readFile(logPath, "utf8").catch(() => ""));
    },
    async cleanup() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
