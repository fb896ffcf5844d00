/**
 * Failure classification for the agent-CLI backends, which mostly get text: a
 * status code when the CLI reports one, else what it printed. Builds on
 * backend-errors.ts and adds what the CLIs other than Claude Code say.
 */
import type { BackendError, BackendErrorKind } from "../ports/backend.js";
import {
  kindForErrorText,
  kindForHttpStatus,
  lastLines,
  makeBackendError,
  refineByText,
  retryAfterMsFromReset,
} from "./backend-errors.js";

export interface FailureFacts {
  /** What the CLI printed about the failure. */
  readonly message: string;
  /** HTTP status of the model API call, when the CLI reported one. */
  readonly status?: number;
  /** The CLI's own verdict on retrying, used when the kind alone says nothing. */
  readonly retryable?: boolean;
  /** Seconds to wait, from a Retry-After header. */
  readonly retryAfterSeconds?: number;
  /** Kind when nothing more specific is recognised. */
  readonly fallback?: BackendErrorKind;
  /** Clock for reset times. */
  readonly nowMs: number;
}

const CLI_TEXT_PATTERNS: readonly (readonly [RegExp, BackendErrorKind])[] = [
  [/no rollout found|no saved session|thread not found/i, "session_expired"],
  [/invalid x-api-key|invalid_api_key|incorrect api key|\b403\b|forbidden/i, "auth"],
  [/usage limit|quota|rate_limit_exceeded/i, "rate_limit"],
  [/connection (?:error|closed|reset|refused)|stream disconnected/i, "connection"],
  [/max(?:imum)?[ _-]?turns/i, "max_turns"],
];

/** Classify one failure: the status wins over the text, the text over the fallback. */
export function classifyFailure(facts: FailureFacts): BackendError {
  const kind = refineByText(
    kindForHttpStatus(facts.status) ??
      kindForErrorText(facts.message) ??
      CLI_TEXT_PATTERNS.find(([pattern]) => pattern.test(facts.message))?.[1] ??
      facts.fallback ??
      "unknown",
    facts.message,
  );
  const retryAfterMs = retryAfterOf(facts);
  const message = facts.message.trim() || `the backend failed (${kind})`;
  return makeBackendError(kind, message, {
    ...(kind === "unknown" && facts.retryable === true ? { retryable: true } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function retryAfterOf(facts: FailureFacts): number | undefined {
  if (facts.retryAfterSeconds !== undefined && Number.isFinite(facts.retryAfterSeconds)) {
    return Math.max(0, facts.retryAfterSeconds * 1000);
  }
  // Claude Code reports a subscription limit as "…limit reached|<reset epoch seconds>".
  const reset = /\|(\d{10,13})\b/.exec(facts.message)?.[1];
  if (reset !== undefined) return retryAfterMsFromReset(Number(reset), facts.nowMs);
  const after = /(?:retry|try again) (?:after|in) (\d+(?:\.\d+)?) ?(ms|s|sec|seconds?)\b/i.exec(
    facts.message,
  );
  if (after?.[1] === undefined) return undefined;
  const value = Number(after[1]);
  return after[2] === "ms" ? value : value * 1000;
}

/** Parse a Retry-After header value (seconds or an HTTP date) into seconds. */
export function retryAfterHeaderSeconds(
  headers: Readonly<Record<string, unknown>> | undefined,
  nowMs: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === "retry-after");
  const value = entry?.[1];
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds;
  const dateMs = Date.parse(String(value));
  return Number.isNaN(dateMs) ? undefined : Math.max(0, (dateMs - nowMs) / 1000);
}

/** The end of a process's output, for messages (the whole output is in the transcript). */
export function tailOf(text: string): string {
  return lastLines(text, 20);
}
