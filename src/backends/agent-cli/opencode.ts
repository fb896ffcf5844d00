/**
 * The `opencode` backend: `opencode run --format json [--model provider/model]
 * [--session id]` with the prompt on stdin. It prints JSON-lines events
 * (`step_start`, `text`, `tool_use`, `step_finish`, `error`), each with the
 * `sessionID`.
 *
 * opencode has no output-schema flag: this backend returns the final text and
 * no structured output; the loop reads the declaration through the decision
 * channels (JSON in the text, the decision file, a marker line). It has no
 * flags for allowed/denied tools or an appended system prompt either: the
 * agent's system text goes ahead of the first prompt of a session.
 */

import { numberOr, parseJsonLines, stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import type {
  Backend,
  BackendError,
  BackendRequest,
  BackendResponse,
  Usage,
} from "../../ports/backend.js";
import type { CommandResult } from "../../process/shell-command.js";
import { errorResponse } from "../backend-errors.js";
import { classifyFailure, retryAfterHeaderSeconds, tailOf } from "../classify-failure.js";
import { readOpencodeToolCall } from "../tool-calls/opencode-tool-calls.js";
import { toolCallsFromLines } from "../tool-calls/tool-call-lines.js";
import {
  type AgentCliEnvironment,
  environmentOf,
  promptWithSystemText,
  runAgentCli,
  withLeftRunning,
} from "./run-agent-cli.js";

export interface OpencodeBackendOptions extends AgentCliEnvironment {
  /** Executable and leading arguments, e.g. `["opencode"]`. */
  readonly command: readonly string[];
  readonly now?: () => number;
}

/** Arguments after the executable. */
function opencodeArgs(request: BackendRequest): string[] {
  const args = ["run", "--format", "json"];
  if (request.model !== undefined) args.push("--model", request.model);
  if (request.sessionId !== undefined) args.push("--session", request.sessionId);
  // Without it, `opencode run` rejects every permission request it would ask about.
  if (request.permissionMode === "bypassPermissions") args.push("--dangerously-skip-permissions");
  return args;
}

export function makeOpencodeBackend(options: OpencodeBackendOptions): Backend {
  const now = options.now ?? Date.now;
  return {
    name: "opencode",
    enforcesSchema: false,
    async query(request) {
      const run = await runAgentCli({
        command: [...options.command, ...opencodeArgs(request)],
        ...environmentOf(options),
        request,
        input: promptWithSystemText(request),
        onLine: toolCallsFromLines(readOpencodeToolCall, request.onToolCall),
      });
      if (!run.ok) return run.response;
      return withLeftRunning(readOpencodeEvents(run.result, request, now()), run.result);
    },
  };
}

/** Read the JSON-lines events of one `opencode run --format json` process as one response. */
function readOpencodeEvents(
  result: CommandResult,
  request: Pick<BackendRequest, "sessionId">,
  nowMs: number,
): BackendResponse {
  const events = parseJsonLines(result.stdout);
  let sessionId = request.sessionId;
  let costUsd = 0;
  let usage: Usage | undefined;
  let error: BackendError | undefined;
  const toolsUsed: string[] = [];
  const textsByMessage = new Map<string, string[]>();
  for (const event of events) {
    sessionId = stringOr(event.sessionID, sessionId);
    const part = isPlainObject(event.part) ? event.part : {};
    if (event.type === "text" && typeof part.text === "string") {
      const messageId = stringOr(part.messageID, "");
      textsByMessage.delete(messageId);
      textsByMessage.set(messageId, [...(textsByMessage.get(messageId) ?? []), part.text]);
    }
    if (event.type === "tool_use") toolsUsed.push(stringOr(part.tool, "tool"));
    if (event.type === "step_finish") {
      costUsd += numberOr(part.cost, 0);
      usage = addTokens(usage, part.tokens);
    }
    if (event.type === "error") error = classifyOpencodeError(event.error, nowMs);
  }
  // The final text is what the last message that said anything said.
  const text = [...textsByMessage.values()].at(-1)?.join("\n") ?? "";
  const response = {
    sessionId,
    toolsUsed,
    transcript: events,
    durationMs: result.durationMs,
    text,
    costUsd,
    ...(usage === undefined ? {} : { usage }),
  };
  if (error === undefined && result.exitCode !== 0) {
    error = classifyFailure({
      message: tailOf(stripAnsi(result.stderr)) || `opencode exited with code ${result.exitCode}`,
      fallback: "crash",
      nowMs,
    });
  }
  return error === undefined ? response : errorResponse(error, response);
}

/** opencode errors are named: `{name: "APIError", data: {message, statusCode, isRetryable, responseHeaders}}`. */
function classifyOpencodeError(value: unknown, nowMs: number): BackendError {
  const name = isPlainObject(value) ? stringOr(value.name, "Error") : "Error";
  const data = isPlainObject(value) && isPlainObject(value.data) ? value.data : {};
  const message = stringOr(data.message, name);
  if (name === "ProviderAuthError")
    return classifyFailure({ message, fallback: "auth", status: 401, nowMs });
  if (name === "MessageAbortedError") return { kind: "aborted", message, retryable: false };
  const status = typeof data.statusCode === "number" ? data.statusCode : undefined;
  const headers = isPlainObject(data.responseHeaders) ? data.responseHeaders : undefined;
  const retryAfterSeconds = retryAfterHeaderSeconds(headers, nowMs);
  return classifyFailure({
    message: name === "APIError" || name === "UnknownError" ? message : `${name}: ${message}`,
    ...(status === undefined ? {} : { status }),
    ...(typeof data.isRetryable === "boolean" ? { retryable: data.isRetryable } : {}),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    fallback: "unknown",
    nowMs,
  });
}

function addTokens(total: Usage | undefined, value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return total;
  const cache = isPlainObject(value.cache) ? value.cache : {};
  return {
    inputTokens: (total?.inputTokens ?? 0) + numberOr(value.input, 0),
    outputTokens:
      (total?.outputTokens ?? 0) + numberOr(value.output, 0) + numberOr(value.reasoning, 0),
    cacheReadTokens: (total?.cacheReadTokens ?? 0) + numberOr(cache.read, 0),
    cacheCreationTokens: (total?.cacheCreationTokens ?? 0) + numberOr(cache.write, 0),
  };
}

function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
