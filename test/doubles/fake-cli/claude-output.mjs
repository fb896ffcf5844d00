/** What `claude -p --output-format json` prints for a fake turn. */
import { randomUUID } from "node:crypto";
import { crash, DEFAULT_USAGE, finalText, printJson } from "./fake-cli-output.mjs";

// ── claude -p --output-format json ─────────────────────────────────────────

export function answerClaude(turn, options) {
  const sessionId = turn.sessionId ?? options.resume ?? randomUUID();
  if (turn.fail === "crash") return crash("claude");
  if (turn.fail === "session_expired") {
    process.stderr.write(`No conversation found with session ID: ${options.resume ?? sessionId}\n`);
    return 1;
  }
  const usage = { ...DEFAULT_USAGE, ...turn.usage };
  const base = {
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 1200,
    duration_api_ms: 1100,
    num_turns: Math.max(1, (turn.tools ?? []).length + 1),
    result: "",
    stop_reason: "end_turn",
    session_id: sessionId,
    total_cost_usd: turn.costUsd ?? 0.0123,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: usage.cacheCreationTokens,
      cache_read_input_tokens: usage.cacheReadTokens,
      output_tokens: usage.outputTokens,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: "standard",
    },
    modelUsage: {
      [options.model ?? "claude-sonnet-4-5"]: {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadInputTokens: usage.cacheReadTokens,
        cacheCreationInputTokens: usage.cacheCreationTokens,
        webSearchRequests: 0,
        costUSD: turn.costUsd ?? 0.0123,
        contextWindow: 200000,
      },
    },
    permission_denials: [],
    uuid: randomUUID(),
  };
  const failure = claudeFailure(turn);
  const result = failure
    ? { ...base, ...failure, total_cost_usd: 0 }
    : { ...base, result: finalText(turn) };
  if (!failure && options.schemaText !== undefined && turn.structuredOutput !== undefined) {
    result.structured_output = turn.structuredOutput;
  }
  // With --verbose, `--output-format json` prints every session message as one array.
  printJson(options.verbose ? [...claudeMessages(turn, sessionId, options), result] : result);
  return failure ? 1 : 0;
}

function claudeMessages(turn, sessionId, options) {
  const init = {
    type: "system",
    subtype: "init",
    cwd: process.cwd(),
    session_id: sessionId,
    tools: ["Bash", "Edit", "Read", "Write"],
    model: options.model ?? "claude-sonnet-4-5",
    permissionMode: options.permissionMode ?? "default",
    uuid: randomUUID(),
  };
  const assistant = (content) => ({
    type: "assistant",
    message: { id: `msg_${randomUUID()}`, type: "message", role: "assistant", content },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });
  const toolUses = (turn.tools ?? []).map((name, index) =>
    assistant([{ type: "tool_use", id: `toolu_${index}`, name, input: {} }]),
  );
  const text = turn.fail ? [] : [assistant([{ type: "text", text: finalText(turn) }])];
  return [init, ...toolUses, ...text];
}

function claudeFailure(turn) {
  switch (turn.fail) {
    case "rate_limit": {
      const body = {
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "Number of request tokens has exceeded your per-minute rate limit",
        },
      };
      const reset = turn.retryAfterSeconds
        ? `Claude AI usage limit reached|${Math.floor(Date.now() / 1000) + turn.retryAfterSeconds}`
        : `API Error: 429 ${JSON.stringify(body)}`;
      return { is_error: true, api_error_status: 429, result: reset, terminal_reason: "api_error" };
    }
    case "overloaded":
      return {
        is_error: true,
        api_error_status: 529,
        result:
          'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        terminal_reason: "api_error",
      };
    case "server_error":
      return {
        is_error: true,
        api_error_status: 503,
        result: "API Error: 503 no healthy upstream",
        terminal_reason: "api_error",
      };
    // No HTTP answer came: no status, the network error's code in the text.
    case "connection_reset":
      return {
        is_error: true,
        api_error_status: null,
        result: "API Error: Unable to connect to API (ECONNRESET)",
        terminal_reason: "api_error",
      };
    case "connection_refused":
      return {
        is_error: true,
        api_error_status: null,
        result: "API Error: Unable to connect to API (ECONNREFUSED)",
        terminal_reason: "api_error",
      };
    case "auth":
      return {
        is_error: true,
        api_error_status: 401,
        result: "Invalid API key · Please run /login",
        terminal_reason: "api_error",
      };
    case "max_turns":
      return {
        subtype: "error_max_turns",
        is_error: true,
        result: undefined,
        errors: ["Reached maximum number of turns (3)"],
        terminal_reason: "max_turns",
      };
    default:
      return undefined;
  }
}
