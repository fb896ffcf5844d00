/**
 * The `claude-cli` backend: Claude Code in print mode,
 * `claude -p --output-format json --verbose --json-schema <schema> [--resume id] …`
 * with the prompt on stdin. Structured output comes from the result's
 * `structured_output`; the session continues with `--resume`.
 */

import { numberOr, stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import type {
  Backend,
  BackendError,
  BackendRequest,
  BackendResponse,
  Usage,
} from "../../ports/backend.js";
import type { BackendConfig } from "../../ports/runner-config.js";
import type { CommandResult } from "../../process/shell-command.js";
import { errorResponse } from "../backend-errors.js";
import { classifyFailure, tailOf } from "../classify-failure.js";
import { protectedPathRules } from "../protected-paths.js";
import { makeClaudeToolCallReader } from "../tool-calls/claude-tool-calls.js";
import { toolCallsFromLines } from "../tool-calls/tool-call-lines.js";
import {
  type AgentCliEnvironment,
  environmentOf,
  runAgentCli,
  withLeftRunning,
} from "./run-agent-cli.js";

export interface ClaudeCliBackendOptions extends AgentCliEnvironment {
  /** Executable and leading arguments, e.g. `["claude"]`. */
  readonly command: readonly string[];
  /** Settings sources Claude Code loads; empty for reproducible runs. */
  readonly settingSources?: readonly string[];
  readonly maxTurns?: number;
  /** Clock for rate-limit reset times. */
  readonly now?: () => number;
}

/**
 * The Claude Code executable: `CLOSER_CLAUDE_PATH`, else agent.json's
 * `claudePath`, else its `command`, else `claude` on the PATH.
 */
export function resolveClaudeCliCommand(
  config: Pick<BackendConfig, "claudePath" | "command">,
  env: Readonly<Record<string, string | undefined>>,
): readonly string[] {
  const fromEnv = env.CLOSER_CLAUDE_PATH?.trim();
  if (fromEnv) return [fromEnv];
  if (config.claudePath) return [config.claudePath];
  if (config.command !== undefined && config.command.length > 0) return config.command;
  return ["claude"];
}

/** The arguments after the executable, in the order Claude Code documents them. */
function claudeCliArgs(
  request: BackendRequest,
  options: Pick<ClaudeCliBackendOptions, "settingSources" | "maxTurns">,
): string[] {
  const args = ["-p", "--output-format", "json", "--verbose"];
  if (request.schema !== undefined) args.push("--json-schema", JSON.stringify(request.schema));
  if (request.sessionId !== undefined) args.push("--resume", request.sessionId);
  if (request.model !== undefined) args.push("--model", request.model);
  if (request.allowedTools.length > 0) args.push("--allowedTools", request.allowedTools.join(","));
  const denied = [...request.disallowedTools, ...protectedPathRules(request.protectedPaths ?? [])];
  if (denied.length > 0) args.push("--disallowedTools", denied.join(","));
  args.push("--permission-mode", request.permissionMode);
  if (request.systemPrompt !== undefined && request.systemPrompt.trim() !== "") {
    args.push("--append-system-prompt", request.systemPrompt);
  }
  if (options.settingSources !== undefined) {
    args.push("--setting-sources", options.settingSources.join(","));
  }
  if (options.maxTurns !== undefined) args.push("--max-turns", String(options.maxTurns));
  return args;
}

export function makeClaudeCliBackend(options: ClaudeCliBackendOptions): Backend {
  // A resumed session reports the running total of the whole session; keep the
  // last total per session so each response carries its own cost.
  const totalCostBySession = new Map<string, number>();
  const now = options.now ?? Date.now;
  return {
    name: "claude-cli",
    enforcesSchema: true,
    async query(request) {
      const run = await runAgentCli({
        command: [...options.command, ...claudeCliArgs(request, options)],
        ...environmentOf(options),
        request,
        input: request.prompt,
        onLine: toolCallsFromLines(makeClaudeToolCallReader(), request.onToolCall),
      });
      if (!run.ok) return run.response;
      const response = readClaudeCliResult(run.result, request, now());
      const total = response.costUsd;
      const previous =
        request.sessionId === undefined ? undefined : totalCostBySession.get(request.sessionId);
      const costUsd = previous !== undefined && total >= previous ? total - previous : total;
      if (response.error === undefined && response.sessionId !== undefined) {
        totalCostBySession.set(response.sessionId, total);
      }
      return withLeftRunning({ ...response, costUsd }, run.result);
    },
  };
}

/** Read the JSON that `claude -p --output-format json` printed, as one response. */
export function readClaudeCliResult(
  result: CommandResult,
  request: Pick<BackendRequest, "sessionId" | "schema">,
  nowMs: number,
): BackendResponse {
  const messages = parseClaudeOutput(result.stdout);
  const final = messages.findLast((message) => message.type === "result");
  const toolsUsed = toolNamesOf(messages);
  const sessionId =
    stringOr(final?.session_id, undefined) ??
    stringOr(
      messages.find((message) => typeof message.session_id === "string")?.session_id,
      undefined,
    ) ??
    request.sessionId;
  const base = { sessionId, toolsUsed, transcript: messages, durationMs: result.durationMs };
  if (final === undefined) {
    const error = classifyFailure({
      message:
        tailOf(`${result.stderr}\n${result.stdout}`) ||
        `claude exited with code ${result.exitCode} and printed no result`,
      fallback: "crash",
      nowMs,
    });
    return errorResponse(error, base);
  }
  const text = stringOr(final.result, undefined) ?? lastAssistantText(messages);
  const response = {
    ...base,
    text,
    costUsd: numberOr(final.total_cost_usd, 0),
    usage: usageOf(final.usage),
  };
  const error = resultError(final, result, nowMs);
  if (error !== undefined) return { ...response, error };
  const structured = final.structured_output;
  if (request.schema === undefined || structured === undefined || structured === null) {
    return response;
  }
  return { ...response, structuredOutput: structured };
}

/** `--output-format json` prints one result object, or (verbose) an array of every message. */
function parseClaudeOutput(stdout: string): Record<string, unknown>[] {
  const trimmed = stdout.trim();
  if (trimmed === "") return [];
  try {
    const value: unknown = JSON.parse(trimmed);
    if (Array.isArray(value)) return value.filter(isPlainObject);
    return isPlainObject(value) ? [value] : [];
  } catch {
    // Stream-shaped output (one message per line) or noise before the JSON.
    return trimmed
      .split(/\r?\n/)
      .flatMap((line) => {
        try {
          const value: unknown = JSON.parse(line);
          return Array.isArray(value) ? value : [value];
        } catch {
          return [];
        }
      })
      .filter(isPlainObject);
  }
}

function resultError(
  final: Record<string, unknown>,
  result: CommandResult,
  nowMs: number,
): BackendError | undefined {
  const subtype = final.subtype;
  if (subtype === "error_max_turns") {
    return {
      kind: "max_turns",
      message: errorText(final, "the maximum number of turns was reached"),
      retryable: false,
    };
  }
  if (subtype === "error_max_budget_usd") {
    return {
      kind: "max_budget",
      message: errorText(final, "the cost budget of the query was spent"),
      retryable: false,
    };
  }
  // The model could not produce valid structured output: an answer without it,
  // which the loop treats as a format error.
  if (subtype === "error_max_structured_output_retries") return undefined;
  if (final.is_error !== true && subtype === "success") return undefined;
  const status = typeof final.api_error_status === "number" ? final.api_error_status : undefined;
  return classifyFailure({
    message: errorText(final, tailOf(result.stderr) || "claude reported an error"),
    ...(status === undefined ? {} : { status }),
    fallback: "unknown",
    nowMs,
  });
}

function errorText(final: Record<string, unknown>, fallback: string): string {
  const errors = Array.isArray(final.errors)
    ? final.errors.filter((entry) => typeof entry === "string")
    : [];
  const result = typeof final.result === "string" ? final.result : "";
  return [result, ...errors].filter((part) => part.trim() !== "").join("\n") || fallback;
}

function toolNamesOf(messages: readonly Record<string, unknown>[]): string[] {
  const names: string[] = [];
  for (const message of messages) {
    if (message.type !== "assistant" || !isPlainObject(message.message)) continue;
    const content = message.message.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (isPlainObject(block) && block.type === "tool_use" && typeof block.name === "string") {
        names.push(block.name);
      }
    }
  }
  return names;
}

function lastAssistantText(messages: readonly Record<string, unknown>[]): string {
  for (const message of [...messages].reverse()) {
    if (message.type !== "assistant" || !isPlainObject(message.message)) continue;
    const content = message.message.content;
    if (!Array.isArray(content)) continue;
    const texts = content.filter((block) => isPlainObject(block) && block.type === "text");
    if (texts.length > 0) return texts.map((block) => String(block.text)).join("\n");
  }
  return "";
}

function usageOf(value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return undefined;
  return {
    inputTokens: numberOr(value.input_tokens, 0),
    outputTokens: numberOr(value.output_tokens, 0),
    cacheReadTokens: numberOr(value.cache_read_input_tokens, 0),
    cacheCreationTokens: numberOr(value.cache_creation_input_tokens, 0),
  };
}
