/**
 * Runs one agent CLI process for one backend query: in the request's working
 * tree (also as `PWD`), with the agent's environment (the backend's plus the
 * request's, without GitHub tokens unless the agent opted in), the prompt on stdin, the query
 * timeout and cancellation. The process runs in its own group, so a timeout
 * or an abort ends every process the CLI started.
 */

import type { BackendError, BackendRequest, BackendResponse } from "../../ports/backend.js";
import { makeAgentEnvironment } from "../../process/agent-environment.js";
import {
  COMMAND_OUTPUT_BYTES,
  type CommandResult,
  type RunningCommand,
  startCommand,
} from "../../process/shell-command.js";
import { abortedError, errorResponse, makeBackendError } from "../backend-errors.js";
import { tailOf } from "../classify-failure.js";

export interface CliInvocation {
  /** Executable followed by every argument. */
  readonly command: readonly string[];
  readonly request: BackendRequest;
  /** What goes to the process's stdin (usually the prompt). */
  readonly input: string;
  /** Variables added on top of the request's environment. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** The environment the process starts from (default: closer's own), before the request's additions. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Keep the GitHub tokens of `baseEnv` (`runner.backend.passGithubToken`). */
  readonly keepGithubToken?: boolean;
  /** Hears each line of stdout as it is written (the live view of tool calls). */
  readonly onLine?: (line: string) => void;
}

/** How an agent CLI backend is told its environment (docs/backends.md#environment). */
export interface AgentCliEnvironment {
  /** The environment its processes start from (the run's backend environment); default: closer's own. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Its processes keep the GitHub tokens of `env` (`runner.backend.passGithubToken`). */
  readonly passGithubToken?: boolean;
}

/** The invocation's fields for a backend's environment options. */
export function environmentOf(
  options: AgentCliEnvironment,
): Pick<CliInvocation, "baseEnv" | "keepGithubToken"> {
  return {
    ...(options.env === undefined ? {} : { baseEnv: options.env }),
    ...(options.passGithubToken === true ? { keepGithubToken: true } : {}),
  };
}

/** A finished CLI process, or the error response of a process that could give no answer. */
export type CliRun =
  | { readonly ok: true; readonly result: CommandResult }
  | { readonly ok: false; readonly response: BackendResponse };

function failed(error: BackendError, request: BackendRequest, durationMs: number): CliRun {
  return {
    ok: false,
    response: errorResponse(error, { durationMs, sessionId: request.sessionId }),
  };
}

export async function runAgentCli(invocation: CliInvocation): Promise<CliRun> {
  const { request } = invocation;
  if (request.signal.aborted) return failed(abortedError(), request, 0);
  const startedMs = Date.now();
  try {
    const running = startCommand({
      command: invocation.command,
      cwd: request.cwd,
      maxOutputBytes: COMMAND_OUTPUT_BYTES,
      // A CLI that reads its folder from PWD (opencode) would otherwise work in closer's own.
      env: makeAgentEnvironment(
        invocation.baseEnv ?? process.env,
        { ...request.env, ...invocation.extraEnv, PWD: request.cwd },
        invocation.keepGithubToken === true,
      ),
      inheritEnv: false,
      input: invocation.input,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
    });
    const result = await withLines(running, invocation.onLine);
    const failure = processFailure(result, invocation.command, request.timeoutMs);
    if (failure === undefined) return { ok: true, result };
    // What the process wrote before it was stopped stays in the record (docs/loop.md#budgets).
    const partial = failed(failure, request, result.durationMs);
    return partial.ok
      ? partial
      : { ok: false, response: { ...partial.response, ...partialOutput(result) } };
  } catch (error) {
    return failed(spawnError(error, invocation.command), request, Date.now() - startedMs);
  }
}

/** The command's result, once `onLine` has heard every line of its stdout. */
async function withLines(
  running: RunningCommand,
  onLine: ((line: string) => void) | undefined,
): Promise<CommandResult> {
  if (onLine === undefined) return running.result;
  const heard = (async () => {
    for await (const line of running.lines) {
      try {
        onLine(line);
      } catch {
        // A listener's failure is not the model's: the answer is read from the whole stdout.
      }
    }
  })();
  const [result] = await Promise.all([running.result, heard]);
  return result;
}

/** Failures that say nothing about the model: timeout, cancellation, a missing executable. */
function processFailure(
  result: CommandResult,
  command: readonly string[],
  timeoutMs: number,
): BackendError | undefined {
  if (result.aborted) return abortedError();
  if (result.timedOut) {
    return makeBackendError(
      "timeout",
      `${command[0]} gave no answer within ${timeoutMs} ms; its process group was terminated`,
    );
  }
  if (result.exitCode === 127 || result.exitCode === 126) {
    return missingExecutable(command, result.stderr);
  }
  return undefined;
}

function partialOutput(result: CommandResult): Partial<BackendResponse> {
  return {
    transcript: [{ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }],
    ...(result.leftRunning === undefined ? {} : { leftRunning: result.leftRunning }),
  };
}

function spawnError(error: unknown, command: readonly string[]): BackendError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT" || code === "EACCES") {
    return missingExecutable(command, String((error as Error).message));
  }
  const detail = error instanceof Error ? error.message : String(error);
  return makeBackendError("crash", `could not run ${command[0]}: ${detail}`);
}

function missingExecutable(command: readonly string[], detail: string): BackendError {
  return makeBackendError(
    "config",
    `the backend executable ${command[0]} could not be run (${tailOf(detail) || "not found"}); install it, or set its path in agent.json (runner.backend.command, or claudePath / CLOSER_CLAUDE_PATH for Claude Code)`,
  );
}

/**
 * For CLIs without a system-prompt flag: the agent's system text goes ahead of
 * the first prompt of a session (a continued session already has it).
 */
export function promptWithSystemText(request: BackendRequest): string {
  const systemText = request.systemPrompt?.trim();
  if (!systemText || request.sessionId !== undefined) return request.prompt;
  return `${systemText}\n\n---\n\n${request.prompt}`;
}

/** A response with the processes the CLI left running outside its group (docs/loop.md#left-running). */
export function withLeftRunning(response: BackendResponse, result: CommandResult): BackendResponse {
  return result.leftRunning === undefined
    ? response
    : { ...response, leftRunning: result.leftRunning };
}
