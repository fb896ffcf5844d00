/** Builders for the stream-json messages Claude Code writes, in the shapes of the SDK's types. */
import { randomUUID } from "node:crypto";

/** @param {{ sessionId: string, cwd: string, model: string, permissionMode: string, tools: string[] }} init */
export function initMessage({ sessionId, cwd, model, permissionMode, tools }) {
  return {
    type: "system",
    subtype: "init",
    cwd,
    session_id: sessionId,
    tools,
    mcp_servers: [],
    model,
    permissionMode,
    slash_commands: [],
    apiKeySource: "none",
    claude_code_version: "0.0.0-fake",
    output_style: "default",
    agents: [],
    skills: [],
    plugins: [],
    uuid: randomUUID(),
  };
}

/**
 * @param {string} sessionId
 * @param {"running" | "idle" | "requires_action"} state
 */
export function sessionStateMessage(sessionId, state) {
  return {
    type: "system",
    subtype: "session_state_changed",
    state,
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/**
 * @param {string} sessionId
 * @param {{ attempt: number, maxRetries: number, status: number | null, error: string }} retry
 */
export function apiRetryMessage(sessionId, { attempt, maxRetries, status, error }) {
  return {
    type: "system",
    subtype: "api_retry",
    attempt,
    max_retries: maxRetries,
    retry_delay_ms: 1000 * 2 ** (attempt - 1),
    error_status: status,
    error,
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/**
 * @param {string} sessionId
 * @param {number} resetsAt epoch seconds
 */
export function rateLimitEvent(sessionId, resetsAt) {
  return {
    type: "rate_limit_event",
    rate_limit_info: { status: "rejected", resetsAt, rateLimitType: "five_hour" },
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/**
 * @param {string} sessionId
 * @param {string} model
 * @param {unknown[]} content
 * @param {string} [error] SDKAssistantMessageError
 */
export function assistantMessage(sessionId, model, content, error) {
  return {
    type: "assistant",
    message: {
      id: `msg_${randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
    parent_tool_use_id: null,
    ...(error === undefined ? {} : { error }),
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/**
 * @param {string} sessionId
 * @param {string} toolUseId
 * @param {string} content
 * @param {boolean} isError
 */
export function toolResultMessage(sessionId, toolUseId, content, isError) {
  return {
    type: "user",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: toolUseId, content, is_error: isError }],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/**
 * @param {{
 *   subtype: string, isError: boolean, sessionId: string, model: string, text?: string,
 *   errors?: string[], apiErrorStatus?: number, structuredOutput?: unknown, numTurns: number,
 *   durationMs: number, turnUsage: Record<string, number>,
 *   totals: { costUsd: number, usage: Record<string, number> }, denials: unknown[]
 * }} result
 */
export function resultMessage(result) {
  const { totals, turnUsage, model } = result;
  return {
    type: "result",
    subtype: result.subtype,
    is_error: result.isError,
    duration_ms: result.durationMs,
    duration_api_ms: result.durationMs,
    num_turns: result.numTurns,
    ...(result.subtype === "success"
      ? { result: result.text ?? "" }
      : { errors: result.errors ?? [] }),
    ...(result.apiErrorStatus === undefined ? {} : { api_error_status: result.apiErrorStatus }),
    stop_reason: result.isError ? null : "end_turn",
    total_cost_usd: totals.costUsd,
    usage: {
      ...turnUsage,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: "standard",
    },
    modelUsage: {
      [model]: {
        inputTokens: totals.usage.input_tokens ?? 0,
        outputTokens: totals.usage.output_tokens ?? 0,
        cacheReadInputTokens: totals.usage.cache_read_input_tokens ?? 0,
        cacheCreationInputTokens: totals.usage.cache_creation_input_tokens ?? 0,
        webSearchRequests: 0,
        costUSD: totals.costUsd,
        contextWindow: 200000,
        maxOutputTokens: 32000,
      },
    },
    permission_denials: result.denials,
    ...(result.structuredOutput === undefined
      ? {}
      : { structured_output: result.structuredOutput }),
    session_id: result.sessionId,
    uuid: randomUUID(),
  };
}
