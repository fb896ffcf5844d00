/**
 * Turn Octokit failures into a GithubError (`github_error`) with a message
 * that says what to do, and typed fields that say whether to try again. No
 * token ever reaches a message or the detail.
 */
import { type GithubAnswer, GithubError } from "../errors.js";

/** What the failed request was about, for the message. */
export interface GithubErrorContext {
  /** E.g. `issue acme/widgets#12` or `repository acme/widgets`. */
  readonly subject: string;
  /** E.g. `read`, `add labels to`, `close`. */
  readonly action: string;
  readonly apiUrl: string;
  readonly token?: string;
  readonly hasToken: boolean;
  readonly now: () => number;
}

interface HttpFailure {
  readonly status: number;
  readonly message: string;
  readonly headers: Readonly<Record<string, string | number | undefined>>;
  readonly hasResponse: boolean;
}

function asHttpFailure(error: unknown): HttpFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const candidate = error as {
    status?: unknown;
    message?: unknown;
    response?: { headers?: Record<string, string | number | undefined> };
  };
  if (typeof candidate.status !== "number") return undefined;
  return {
    status: candidate.status,
    message: typeof candidate.message === "string" ? candidate.message : "",
    headers: candidate.response?.headers ?? {},
    hasResponse: candidate.response !== undefined,
  };
}

/** Replace every occurrence of the token with `***`. */
function redactToken(text: string, token: string | undefined): string {
  if (!token || token.length < 4) return text;
  return text.split(token).join("***");
}

function header(failure: HttpFailure, name: string): string | undefined {
  const value = failure.headers[name];
  return value === undefined ? undefined : String(value);
}

/** Milliseconds until the rate limit resets, from retry-after or x-ratelimit-reset. */
function rateLimitWaitMs(
  headers: Readonly<Record<string, string | number | undefined>>,
  nowMs: number,
): number | undefined {
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined && Number.isFinite(Number(retryAfter))) {
    return Number(retryAfter) * 1000;
  }
  const reset = headers["x-ratelimit-reset"];
  if (reset !== undefined && Number.isFinite(Number(reset))) {
    return Math.max(0, Number(reset) * 1000 - nowMs);
  }
  return undefined;
}

function isRateLimited(failure: HttpFailure): boolean {
  if (failure.status === 429) return true;
  if (failure.status !== 403) return false;
  return (
    header(failure, "x-ratelimit-remaining") === "0" ||
    header(failure, "retry-after") !== undefined ||
    /rate limit/i.test(failure.message)
  );
}

function rateLimitMessage(failure: HttpFailure, context: GithubErrorContext): string {
  const waitMs = rateLimitWaitMs(failure.headers, context.now());
  if (waitMs === undefined) return "GitHub rate limit reached; try again later";
  const resetAt = new Date(context.now() + waitMs).toISOString();
  const minutes = Math.ceil(waitMs / 60_000);
  return `GitHub rate limit reached; it resets at ${resetAt} (in ${minutes} min)`;
}

/** No answer, a rate limit or a server error: the same request may succeed later. */
function answerOf(failure: HttpFailure): GithubAnswer {
  if (!failure.hasResponse) return { transient: true };
  const transient = isRateLimited(failure) || failure.status >= 500;
  return { status: failure.status, transient };
}

function messageAndFix(
  failure: HttpFailure,
  context: GithubErrorContext,
): { message: string; fix?: string } {
  if (!failure.hasResponse) {
    return {
      message: `could not reach GitHub at ${context.apiUrl}: ${failure.message}`,
      fix: "check the network and GITHUB_API_URL",
    };
  }
  if (failure.status === 401) {
    return {
      message: context.hasToken
        ? "GitHub rejected the token (401 Bad credentials)"
        : "GitHub needs a token for this request (401)",
      fix: "set GITHUB_TOKEN to a token with repo scope",
    };
  }
  if (isRateLimited(failure)) {
    return { message: rateLimitMessage(failure, context), fix: "wait for the reset time" };
  }
  if (failure.status === 404) {
    return {
      message: `${context.subject} not found (404)`,
      fix: `check the number and that GITHUB_TOKEN can see it (private repositories answer 404 without access)`,
    };
  }
  if (failure.status === 403) {
    return {
      message: `GitHub refused to ${context.action} ${context.subject} (403): ${failure.message}`,
      fix: "give GITHUB_TOKEN the needed permission (repo scope, or issues: write)",
    };
  }
  return {
    message: `GitHub request to ${context.action} ${context.subject} failed (${failure.status}): ${failure.message}`,
  };
}

/** A GithubError for any failure of a GitHub request. */
export function translateGithubError(error: unknown, context: GithubErrorContext): GithubError {
  const failure = asHttpFailure(error);
  if (!failure) {
    // No HTTP status: the request never got an answer (a network or client failure).
    const text = error instanceof Error ? error.message : String(error);
    return new GithubError(
      redactToken(
        `GitHub request to ${context.action} ${context.subject} failed: ${text}`,
        context.token,
      ),
      { transient: true },
    );
  }
  const { message, fix } = messageAndFix(failure, context);
  const waitMs = isRateLimited(failure)
    ? rateLimitWaitMs(failure.headers, context.now())
    : undefined;
  return new GithubError(redactToken(message, context.token), answerOf(failure), {
    found: `HTTP ${failure.status}`,
    detail: redactToken(
      [
        `${context.action} ${context.subject} at ${context.apiUrl}`,
        `status ${failure.status}: ${failure.message}`,
        ...(waitMs === undefined ? [] : [`retry after ${waitMs} ms`]),
      ].join("\n"),
      context.token,
    ),
    ...(fix ? { fix } : {}),
  });
}
