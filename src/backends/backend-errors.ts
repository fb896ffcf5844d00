/**
 * Translating backend failures into fields. Every backend turns what its
 * process, SDK or API reported into a BackendError here, so the loop decides
 * on `kind`, `retryable` and `retryAfterMs` and never reads message text.
 */
import type { BackendError, BackendErrorKind, BackendResponse } from "../ports/backend.js";

/** Kinds that repeat the same iteration after a wait; they do not count against the work. */
export const RETRYABLE_KINDS: ReadonlySet<BackendErrorKind> = new Set<BackendErrorKind>([
  "rate_limit",
  "overloaded",
  "server_error",
  "timeout",
  "connection",
  "session_expired",
]);

/** What to do about a failed login, in one sentence. */
export const AUTH_HINT = "Log in with `claude /login`, or set ANTHROPIC_API_KEY.";

export function isRetryableKind(kind: BackendErrorKind): boolean {
  return RETRYABLE_KINDS.has(kind);
}

/** A BackendError whose `retryable` follows from its kind unless told otherwise. */
export function makeBackendError(
  kind: BackendErrorKind,
  message: string,
  options: { retryAfterMs?: number; retryable?: boolean } = {},
): BackendError {
  const retryable = options.retryable ?? isRetryableKind(kind);
  return options.retryAfterMs === undefined
    ? { kind, message, retryable }
    : { kind, message, retryable, retryAfterMs: Math.max(0, Math.round(options.retryAfterMs)) };
}

export function timeoutError(timeoutMs: number): BackendError {
  return makeBackendError("timeout", `the backend did not answer within ${timeoutMs} ms`);
}

export function abortedError(): BackendError {
  return makeBackendError("aborted", "the query was cancelled");
}

/** An authentication failure, with how to fix it. */
export function authError(detail: string): BackendError {
  return makeBackendError("auth", `authentication failed: ${detail}. ${AUTH_HINT}`);
}

/** The backend's process ended without an answer. */
export function crashError(detail: {
  readonly program: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly stderr?: string;
}): BackendError {
  const how =
    detail.signal != null
      ? `was killed by ${detail.signal}`
      : `exited with code ${detail.exitCode ?? "unknown"}`;
  const tail = lastLines(detail.stderr ?? "", 20);
  return makeBackendError(
    "crash",
    `${detail.program} ${how} without an answer${tail ? `; stderr:\n${tail}` : ""}`,
  );
}

/** The kind an HTTP status of a model API means, when it means one. */
export function kindForHttpStatus(status: number | null | undefined): BackendErrorKind | undefined {
  if (status == null) return undefined;
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "server_error";
  return undefined;
}

/**
 * Overload, however the error reports it: the word or the status 529 anywhere
 * in it wins over a broader kind (an SDK's `server_error`, a 500 wrapper).
 */
const OVERLOADED_TEXT = /overloaded|\b529\b/i;

const TEXT_PATTERNS: readonly (readonly [RegExp, BackendErrorKind])[] = [
  [
    /no conversation found with session id|session (?:id )?not found|unknown session/i,
    "session_expired",
  ],
  [/rate[ _-]?limit|too many requests|\b429\b/i, "rate_limit"],
  [OVERLOADED_TEXT, "overloaded"],
  [/invalid api key|authenticat|unauthori[sz]ed|not logged in|please run \/login|\b401\b/i, "auth"],
  [
    /ETIMEDOUT|ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|socket hang up|network error|fetch failed/i,
    "connection",
  ],
  [
    /internal server error|bad gateway|service unavailable|gateway timeout|\b50[0234]\b/i,
    "server_error",
  ],
];

/** Kinds broad enough that the error's text may name what happened more exactly. */
const BROAD_KINDS: ReadonlySet<BackendErrorKind> = new Set([
  "server_error",
  "connection",
  "unknown",
]);
const TRANSIENT_TEXT_KINDS: ReadonlySet<BackendErrorKind> = new Set([
  "overloaded",
  "server_error",
  "connection",
]);

/**
 * Classifies by what happened rather than by the bucket an SDK or CLI chose:
 * a broad kind becomes `overloaded`, `connection` or `server_error` when the
 * error's text says so (an overload wins over the rest).
 */
export function refineByText(kind: BackendErrorKind, text: string): BackendErrorKind {
  if (!BROAD_KINDS.has(kind)) return kind;
  if (OVERLOADED_TEXT.test(text)) return "overloaded";
  const named = kindForErrorText(text);
  return named !== undefined && TRANSIENT_TEXT_KINDS.has(named) ? named : kind;
}

/**
 * The kind an error text of a CLI means, for backends that only get text
 * (stderr, an `error` event). The first matching pattern wins.
 */
export function kindForErrorText(text: string): BackendErrorKind | undefined {
  return TEXT_PATTERNS.find(([pattern]) => pattern.test(text))?.[1];
}

/**
 * Milliseconds until a reset time: epoch seconds, epoch milliseconds or an
 * ISO date. Undefined when there is no usable time.
 */
export function retryAfterMsFromReset(
  resetsAt: number | string | null | undefined,
  nowMs: number,
): number | undefined {
  if (resetsAt == null || resetsAt === "") return undefined;
  const numeric = typeof resetsAt === "number" ? resetsAt : Number(resetsAt);
  const atMs = Number.isFinite(numeric)
    ? numeric < 1e11
      ? numeric * 1000
      : numeric
    : Date.parse(String(resetsAt));
  if (!Number.isFinite(atMs)) return undefined;
  return Math.max(0, Math.round(atMs - nowMs));
}

/** A response that carries only an error (nothing was answered). */
export function errorResponse(
  error: BackendError,
  partial: Partial<Omit<BackendResponse, "error">> = {},
): BackendResponse {
  return {
    text: "",
    costUsd: 0,
    durationMs: 0,
    toolsUsed: [],
    transcript: [],
    ...partial,
    error,
  };
}

/** The last `count` non-empty lines of a text (for error messages; the full text goes to the record). */
export function lastLines(text: string, count: number): string {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-count)
    .join("\n");
}
