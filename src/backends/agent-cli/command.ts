/**
 * The `command` backend: any executable answers the prompt. The prompt goes
 * to its stdin, its stdout is the answer text, and it finds the check id and
 * the decision file in `CLOSER_CHECK_ID` / `CLOSER_DECISION_FILE` (from the
 * request's environment). A non-zero exit is a crash (or, when stderr names
 * one, a failure of the model API such as a 429); stderr is only ever an error
 * message, never a declaration.
 *
 * Added to its environment: `CLOSER_OUTPUT_SCHEMA` (the step's schema as JSON,
 * when the step has one), `CLOSER_SESSION_ID` (the session to continue) and
 * `CLOSER_MODEL`. Unless its configuration says the program answers in that
 * schema (`readsOutputSchema`), closer appends the schema to the prompt
 * (docs/backends.md#schema-instructions).
 */
import type { Backend, BackendError, BackendRequest } from "../../ports.js";
import type { CommandResult } from "../../process/shell-command.js";
import { crashError, errorResponse } from "../backend-errors.js";
import { classifyFailure, tailOf } from "../classify-failure.js";
import { runAgentCli, withLeftRunning } from "./run-agent-cli.js";

export interface CommandBackendOptions {
  /** Executable and its arguments. */
  readonly command: readonly string[];
  /** The program answers in the schema it reads from `CLOSER_OUTPUT_SCHEMA` (default false). */
  readonly readsOutputSchema?: boolean;
}

function addedEnv(request: BackendRequest): Record<string, string> {
  const env: Record<string, string> = {};
  if (request.schema !== undefined) env.CLOSER_OUTPUT_SCHEMA = JSON.stringify(request.schema);
  if (request.sessionId !== undefined) env.CLOSER_SESSION_ID = request.sessionId;
  if (request.model !== undefined) env.CLOSER_MODEL = request.model;
  return env;
}

export function makeCommandBackend(options: CommandBackendOptions): Backend {
  return {
    name: "command",
    enforcesSchema: options.readsOutputSchema ?? false,
    async query(request) {
      const run = await runAgentCli({
        command: options.command,
        request,
        input: request.prompt,
        extraEnv: addedEnv(request),
      });
      if (!run.ok) return run.response;
      const { result } = run;
      const response = {
        text: result.stdout,
        costUsd: 0,
        durationMs: result.durationMs,
        toolsUsed: [],
        transcript: [{ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }],
        ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      };
      if (result.exitCode === 0) return withLeftRunning(response, result);
      return errorResponse(exitError(options.command[0] ?? "command", result), response);
    },
  };
}

/** A non-zero exit: a crash, unless stderr names a failure of the model API (a 429, say). */
function exitError(program: string, result: CommandResult): BackendError {
  const crash = crashError({
    program,
    exitCode: result.exitCode,
    signal: result.signal ?? null,
    stderr: result.stderr,
  });
  const classified = classifyFailure({
    message: tailOf(result.stderr),
    fallback: "crash",
    nowMs: Date.now(),
  });
  return classified.kind === "crash" ? crash : { ...classified, message: crash.message };
}
