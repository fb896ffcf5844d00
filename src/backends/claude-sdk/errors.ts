/**
 * What went wrong in one SDK query, as BackendError fields: read from the
 * result message, assistant `error` fields, `api_retry` and rate-limit
 * events, the thrown error and the executable's stderr.
 */
import type {
  SDKAssistantMessageError,
  SDKMessage,
  SDKResultMessage,
} from "@anthropic-ai/claude-agent-sdk";
import type { BackendError, BackendErrorKind, BackendRequest } from "../../ports/backend.js";
import {
  abortedError,
  authError,
  crashError,
  kindForHttpStatus,
  makeBackendError,
  refineByText,
  retryAfterMsFromReset,
  timeoutError,
} from "../backend-errors.js";

/** Everything one query left behind. */
export interface QueryRun {
  readonly messages: readonly SDKMessage[];
  /** What the SDK's message stream threw, if anything. */
  readonly thrown?: unknown;
  /** Set when closer stopped the query itself. */
  readonly stopReason?: "timeout" | "aborted";
  readonly stderr: string;
  readonly exit?: { readonly code: number | null; readonly signal: string | null };
  /** Processes the executable started outside its group that outlived it (docs/loop.md#left-running). */
  readonly leftRunning?: readonly { readonly pid: number; readonly command: string }[];
}

const SESSION_MISSING = /No conversation found with session ID/i;
const EXECUTABLE_MISSING =
  /executable not found|native binary not found|Native CLI binary .* not found/i;

const ASSISTANT_ERROR_KINDS: Record<SDKAssistantMessageError, BackendErrorKind> = {
  rate_limit: "rate_limit",
  overloaded: "overloaded",
  authentication_failed: "auth",
  oauth_org_not_allowed: "auth",
  account_on_hold: "auth",
  verification_required: "auth",
  cloud_credential_error: "auth",
  billing_error: "auth",
  server_error: "server_error",
  model_not_found: "config",
  invalid_request: "unknown",
  max_output_tokens: "unknown",
  unknown: "unknown",
};

export function lastResult(messages: readonly SDKMessage[]): SDKResultMessage | undefined {
  return messages.findLast((message): message is SDKResultMessage => message.type === "result");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : error === undefined ? "" : String(error);
}

function resultText(result: SDKResultMessage | undefined): string {
  if (result === undefined) return "";
  return result.subtype === "success" ? result.result : result.errors.join("; ");
}

function lastAssistantError(messages: readonly SDKMessage[]): SDKAssistantMessageError | undefined {
  for (const message of messages.toReversed()) {
    if (message.type === "assistant" && message.error !== undefined) return message.error;
  }
  return undefined;
}

function retryAfterMs(messages: readonly SDKMessage[], nowMs: number): number | undefined {
  for (const message of messages.toReversed()) {
    if (message.type === "rate_limit_event" && message.rate_limit_info.status === "rejected") {
      return retryAfterMsFromReset(message.rate_limit_info.resetsAt, nowMs);
    }
  }
  return undefined;
}

/** Failures the model API reported (429, 529, 401, …), when there are any. */
function apiFailure(
  run: QueryRun,
  request: BackendRequest,
  nowMs: number,
): BackendError | undefined {
  const result = lastResult(run.messages);
  const lastRetry = run.messages.findLast(
    (message) => message.type === "system" && message.subtype === "api_retry",
  );
  const retry =
    lastRetry?.type === "system" && lastRetry.subtype === "api_retry" ? lastRetry : undefined;
  const assistantError = lastAssistantError(run.messages);
  const status = result?.subtype === "success" ? result.api_error_status : undefined;
  const broadKind =
    (assistantError && ASSISTANT_ERROR_KINDS[assistantError]) ??
    kindForHttpStatus(status) ??
    (retry && ASSISTANT_ERROR_KINDS[retry.error]) ??
    kindForHttpStatus(retry?.error_status);
  if (broadKind === undefined) return undefined;
  const detail = resultText(result) || assistantError || retry?.error || `HTTP ${status}`;
  // Classified by what happened: the SDK files a 529 under `server_error`.
  const kind = refineByText(broadKind, detail);
  if (kind === "auth") return authError(detail);
  if (kind === "config") {
    return makeBackendError(
      "config",
      `the model ${request.model ?? "(default)"} is not available: ${detail}`,
    );
  }
  const wait =
    kind === "rate_limit" || kind === "overloaded" || kind === "server_error"
      ? retryAfterMs(run.messages, nowMs)
      : undefined;
  return makeBackendError(kind, `Claude API: ${detail}`, { retryAfterMs: wait });
}

function resultError(result: SDKResultMessage): BackendError | undefined {
  switch (result.subtype) {
    case "error_max_turns":
      return makeBackendError(
        "max_turns",
        `the query reached its turn limit after ${result.num_turns} turns`,
      );
    case "error_max_budget_usd":
      return makeBackendError("max_budget", "the query reached its budget limit (maxBudgetUsd)");
    case "error_max_structured_output_retries":
      return undefined;
    default:
      return makeBackendError(
        "unknown",
        `Claude Code reported an error: ${resultText(result) || result.subtype}`,
      );
  }
}

/**
 * The error of a query, or undefined when it answered. A success without
 * structured output (or past the structured-output retries) is not an error
 * here: the loop's format retry handles it.
 */
export function classifyRun(
  run: QueryRun,
  request: BackendRequest,
  nowMs: number,
): BackendError | undefined {
  if (run.stopReason === "timeout") return timeoutError(request.timeoutMs);
  if (run.stopReason === "aborted") return abortedError();
  const result = lastResult(run.messages);
  const thrown = errorText(run.thrown);
  if (SESSION_MISSING.test([thrown, run.stderr, resultText(result)].join("\n"))) {
    return makeBackendError(
      "session_expired",
      `the session ${request.sessionId ?? ""} can no longer be resumed; a new session is needed`,
    );
  }
  if (result?.subtype === "success" && !result.is_error) return undefined;
  const fromApi = apiFailure(run, request, nowMs);
  if (fromApi) return fromApi;
  if (result) return resultError(result);
  if (EXECUTABLE_MISSING.test(thrown)) {
    return makeBackendError(
      "config",
      `${thrown}. Set CLOSER_CLAUDE_PATH to a Claude Code executable, or run \`npm install\` with optional dependencies.`,
    );
  }
  return crashError({
    program: "Claude Code",
    exitCode: run.exit?.code,
    signal: run.exit?.signal,
    stderr: [run.stderr, thrown].filter(Boolean).join("\n"),
  });
}
