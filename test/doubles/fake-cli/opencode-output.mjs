/** What `opencode run --format json` prints for a fake turn. */
import { randomUUID } from "node:crypto";
import { crash, DEFAULT_USAGE, finalText, printJson } from "./fake-cli-output.mjs";

// ── opencode run --format json ─────────────────────────────────────────────

export function answerOpencode(turn, options) {
  if (turn.fail === "crash") return crash("opencode");
  if (turn.fail === "session_expired") {
    process.stderr.write("\u001b[91m\u001b[1mError: \u001b[0mSession not found\n");
    return 1;
  }
  const sessionID =
    turn.sessionId ?? options.resume ?? `ses_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  const messageID = `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  let partNumber = 0;
  const event = (type, part) => {
    const id = `prt_${String(partNumber++).padStart(4, "0")}`;
    printJson({
      type,
      timestamp: Date.now(),
      sessionID,
      part: { id, sessionID, messageID, ...part },
    });
  };
  const failure = opencodeFailure(turn);
  if (failure) {
    printJson({ type: "error", timestamp: Date.now(), sessionID, error: failure });
    return 1;
  }
  event("step_start", { type: "step-start", snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" });
  const now = Date.now();
  for (const tool of turn.tools ?? []) {
    event("tool_use", {
      type: "tool",
      callID: `call_${partNumber}`,
      tool,
      state: {
        status: "completed",
        input: {},
        output: "",
        title: tool,
        metadata: {},
        time: { start: now, end: now },
      },
    });
  }
  event("text", { type: "text", text: finalText(turn), time: { start: now, end: now } });
  const usage = { ...DEFAULT_USAGE, ...turn.usage };
  event("step_finish", {
    type: "step-finish",
    reason: "stop",
    snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    cost: turn.costUsd ?? 0.0042,
    tokens: {
      input: usage.inputTokens,
      output: usage.outputTokens,
      reasoning: 0,
      cache: { read: usage.cacheReadTokens, write: usage.cacheCreationTokens },
    },
  });
  return 0;
}

function opencodeFailure(turn) {
  switch (turn.fail) {
    case "rate_limit":
      return {
        name: "APIError",
        data: {
          message: "Rate limit exceeded",
          statusCode: 429,
          isRetryable: true,
          responseHeaders: turn.retryAfterSeconds
            ? { "retry-after": String(turn.retryAfterSeconds) }
            : {},
        },
      };
    case "overloaded":
      return {
        name: "APIError",
        data: { message: "Overloaded", statusCode: 529, isRetryable: true },
      };
    case "server_error":
      return {
        name: "APIError",
        data: {
          message: "Service Unavailable",
          statusCode: 503,
          isRetryable: true,
          responseHeaders: turn.retryAfterSeconds
            ? { "retry-after": String(turn.retryAfterSeconds) }
            : {},
        },
      };
    // Network errors carry no status; their code is in `metadata`.
    case "connection_reset":
      return {
        name: "APIError",
        data: {
          message: "Connection reset by server",
          isRetryable: true,
          metadata: { code: "ECONNRESET", syscall: "read", message: "read ECONNRESET" },
        },
      };
    case "connection_refused":
      return {
        name: "APIError",
        data: {
          message: "Provider connection refused",
          isRetryable: true,
          metadata: {
            code: "ECONNREFUSED",
            syscall: "connect",
            message: "connect ECONNREFUSED 127.0.0.1:443",
          },
        },
      };
    case "auth":
      return {
        name: "ProviderAuthError",
        data: { providerID: "anthropic", message: "invalid x-api-key" },
      };
    case "max_turns":
      return { name: "MessageOutputLengthError", data: {} };
    default:
      return undefined;
  }
}
