/**
 * The default backend: the Claude Agent SDK's `query()` driving the Claude
 * Code executable (docs/backends.md#claude-sdk). One query per iteration; the session continues
 * with `resume` when the loop passes a session id.
 *
 * Tool permissions follow Claude Code's rules for a run with nobody to ask:
 * `allowedTools` are pre-approved and `permissionMode` decides the rest (in
 * `default` and `dontAsk` a tool that is not pre-approved is refused). A
 * PreToolUse hook keeps the GitHub boundary (../boundary.ts) in every mode.
 */
import type { Query, SDKMessage, SettingSource } from "@anthropic-ai/claude-agent-sdk";
import { importModule } from "../../import-module.js";
import type { Backend, BackendRequest, BackendResponse } from "../../ports/backend.js";
import type { BackendConfig } from "../../ports/runner-config.js";
import { abortedError, errorResponse } from "../backend-errors.js";
import { makeClaudeToolCallReader } from "../tool-calls/claude-tool-calls.js";
import { makeClaudeProcess } from "./claude-process.js";
import type { QueryRun } from "./errors.js";
import { findNativeClaudeExecutable, resolveClaudeExecutable } from "./executable.js";
import { buildSdkOptions } from "./options.js";
import { type SessionTotals, toBackendResponse } from "./response.js";
import { makeRunningCost } from "./running-cost.js";
import { makeStructuredOutputValidator } from "./structured-output.js";

/** What the backend reads of agent.json's `backend` (a whole BackendConfig fits). */
export type ClaudeSdkBackendConfig = Partial<
  Pick<BackendConfig, "claudePath" | "settingSources" | "maxTurns">
>;

/** How the backend runs, beyond agent.json. */
export interface ClaudeSdkBackendOptions {
  /** Closer's environment (default `process.env`); CLOSER_CLAUDE_PATH is read from it and the executable gets it plus `request.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The environment the executable starts from, when not `env` itself: the
   * run gives the backend's environment of its policy (docs/backends.md#environment).
   */
  readonly processEnv?: Readonly<Record<string, string | undefined>>;
  /** The executable keeps the GitHub tokens of its environment (`runner.backend.passGithubToken`). */
  readonly passGithubToken?: boolean;
  /** Between SIGTERM and SIGKILL when a query is stopped; default 2000. */
  readonly killGraceMs?: number;
  /** Finds the native binary of the SDK's optional platform package; undefined when missing. */
  readonly findNativeExecutable?: () => string | undefined;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
  /** The name the backend reports; default `claude-sdk`. */
  readonly name?: string;
}

const DEFAULT_KILL_GRACE_MS = 2000;

interface RunSettings {
  readonly executablePath: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly keepGithubToken: boolean;
  readonly githubApiUrl: string | undefined;
  readonly settingSources: readonly SettingSource[];
  readonly maxTurns?: number;
  readonly killGraceMs: number;
}

const MAX_TIMER_MS = 2_147_483_647;

/** Reads the SDK's messages to their end; resolves with what the stream threw, if anything. */
async function drain(
  stream: Query,
  messages: SDKMessage[],
  onMessage: (message: SDKMessage) => void,
): Promise<{ thrown?: unknown }> {
  try {
    for await (const message of stream) {
      messages.push(message);
      onMessage(message);
    }
    return {};
  } catch (error) {
    return { thrown: error };
  }
}

/** Resolves `"stuck"` once `afterMs` have passed since it was armed. */
function makeDeadline(afterMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let arm = () => {};
  const reached = new Promise<"stuck">((done) => {
    arm = () => {
      timer ??= setTimeout(() => done("stuck"), afterMs);
    };
  });
  return { reached, arm: () => arm(), dispose: () => clearTimeout(timer) };
}

/** What hears each message as it streams: the running cost, and the live view of tool calls. */
function messageListener(request: BackendRequest): (message: SDKMessage) => void {
  const onCost = request.onCost === undefined ? undefined : makeRunningCost(request.onCost);
  const { onToolCall } = request;
  const readToolCalls = onToolCall === undefined ? undefined : makeClaudeToolCallReader();
  return (message) => {
    onCost?.(message);
    for (const activity of readToolCalls?.(message) ?? []) onToolCall?.(activity);
  };
}

/** Runs one query to its end, stopping it on timeout or abort; the process group is gone after. */
async function runQuery(request: BackendRequest, settings: RunSettings): Promise<QueryRun> {
  if (request.signal.aborted) return { messages: [], stopReason: "aborted", stderr: "" };
  const claudeProcess = makeClaudeProcess({
    graceMs: settings.killGraceMs,
    ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
  });
  const abortController = new AbortController();
  const messages: SDKMessage[] = [];
  let stopReason: QueryRun["stopReason"];
  let stopped: Promise<void> = Promise.resolve();
  // Once stopped, the SDK gets a bounded time to end its stream, so no wait is unbounded.
  const stuck = makeDeadline(settings.killGraceMs * 2 + 1000);
  const stop = (reason: NonNullable<QueryRun["stopReason"]>) => {
    if (stopReason !== undefined) return;
    stopReason = reason;
    stopped = claudeProcess.terminate();
    abortController.abort();
    stuck.arm();
  };
  const onAbort = () => stop("aborted");
  request.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop("timeout"), Math.min(request.timeoutMs, MAX_TIMER_MS));
  let thrown: unknown;
  try {
    const options = buildSdkOptions(request, {
      ...settings,
      abortController,
      spawn: claudeProcess.spawn,
    });
    // Loaded on the first query: a process that never runs this backend never pays for the SDK.
    const { query } = await importModule<typeof import("@anthropic-ai/claude-agent-sdk")>(
      "@anthropic-ai/claude-agent-sdk",
    );
    const stream = query({ prompt: request.prompt, options });
    const onMessage = messageListener(request);
    const ended = await Promise.race([drain(stream, messages, onMessage), stuck.reached]);
    if (ended === "stuck") void stream.return(undefined).catch(() => {});
    else thrown = ended.thrown;
  } catch (error) {
    thrown = error;
  } finally {
    clearTimeout(timer);
    stuck.dispose();
    request.signal.removeEventListener("abort", onAbort);
  }
  await stopped;
  await claudeProcess.settle();
  const exit = claudeProcess.exit();
  const leftRunning = claudeProcess.leftRunning();
  return {
    ...(leftRunning.length === 0 ? {} : { leftRunning }),
    messages,
    thrown,
    stopReason,
    stderr: claudeProcess.stderr(),
    ...(exit ? { exit } : {}),
  };
}

/**
 * Settings sources default to none (reproducible runs); the turn limit to the executable's own.
 */
export function makeClaudeSdkBackend(
  config: ClaudeSdkBackendConfig = {},
  options: ClaudeSdkBackendOptions = {},
): Backend {
  const sessionTotals = new Map<string, SessionTotals>();
  const validate = makeStructuredOutputValidator();
  const now = options.now ?? Date.now;
  const closerEnv = options.env ?? process.env;

  return {
    name: options.name ?? "claude-sdk",
    enforcesSchema: true,
    async query(request: BackendRequest): Promise<BackendResponse> {
      const startedAt = now();
      if (request.signal.aborted) return errorResponse(abortedError());
      const executable = await resolveClaudeExecutable({
        env: closerEnv,
        ...(config.claudePath === undefined ? {} : { claudePath: config.claudePath }),
        findNativeExecutable: options.findNativeExecutable ?? findNativeClaudeExecutable,
      });
      if (executable.error)
        return errorResponse(executable.error, { durationMs: now() - startedAt });
      const run = await runQuery(request, {
        executablePath: executable.path,
        baseEnv: options.processEnv ?? closerEnv,
        keepGithubToken: options.passGithubToken === true,
        githubApiUrl: closerEnv.GITHUB_API_URL,
        settingSources: config.settingSources ?? [],
        ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns }),
        killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      });
      const finishedAt = now();
      const response = toBackendResponse(run, {
        request,
        sessionTotals,
        validate,
        durationMs: finishedAt - startedAt,
        nowMs: finishedAt,
      });
      return run.leftRunning === undefined
        ? response
        : { ...response, leftRunning: run.leftRunning };
    },
  };
}
