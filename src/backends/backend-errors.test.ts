import { describe, expect, it } from "vitest";
import type { BackendErrorKind } from "../ports/backend.js";
import {
  AUTH_HINT,
  authError,
  crashError,
  errorResponse,
  isRetryableKind,
  kindForErrorText,
  kindForHttpStatus,
  makeBackendError,
  refineByText,
  retryAfterMsFromReset,
  timeoutError,
} from "./backend-errors.js";

const NOW_MS = Date.parse("2030-01-01T00:00:00Z");

describe("backend errors as fields", () => {
  it("makes waits retryable and the rest not", () => {
    const retryable: BackendErrorKind[] = [
      "rate_limit",
      "overloaded",
      "timeout",
      "connection",
      "session_expired",
    ];
    const final: BackendErrorKind[] = [
      "auth",
      "max_turns",
      "max_budget",
      "aborted",
      "crash",
      "config",
      "unknown",
    ];
    expect(retryable.every(isRetryableKind)).toBe(true);
    expect(final.some(isRetryableKind)).toBe(false);
    expect(makeBackendError("crash", "x", { retryable: true }).retryable).toBe(true);
  });

  it("keeps a wait only when there is one, never negative", () => {
    expect(makeBackendError("rate_limit", "x")).not.toHaveProperty("retryAfterMs");
    expect(makeBackendError("rate_limit", "x", { retryAfterMs: -5 }).retryAfterMs).toBe(0);
  });

  it.each([
    [429, "rate_limit"],
    [529, "overloaded"],
    [503, "server_error"],
    [401, "auth"],
    [403, "auth"],
    [408, "timeout"],
    [504, "server_error"],
    [502, "server_error"],
    [500, "server_error"],
    [400, undefined],
    [null, undefined],
  ] as const)("reads HTTP status %s as %s", (status, kind) => {
    expect(kindForHttpStatus(status)).toBe(kind);
  });

  it.each([
    ["No conversation found with session ID: abc", "session_expired"],
    ["API Error: 429 rate_limit_error", "rate_limit"],
    ["Too Many Requests", "rate_limit"],
    ['{"type":"overloaded_error"}', "overloaded"],
    ["Invalid API key · Please run /login", "auth"],
    ["connect ECONNREFUSED 127.0.0.1:443", "connection"],
    ["read ECONNRESET", "connection"],
    ["getaddrinfo ENOTFOUND api.anthropic.com", "connection"],
    ["TypeError: fetch failed", "connection"],
    ["API Error: 500 Internal server error", "server_error"],
    ["503 Service Unavailable", "server_error"],
    ["API Error: 529 Overloaded", "overloaded"],
    ["the tests failed", undefined],
  ] as const)("reads %j as %s", (text, kind) => {
    expect(kindForErrorText(text)).toBe(kind);
  });

  it.each([
    ["server_error", 'API Error: 529 {"type":"overloaded_error"}', "overloaded"],
    ["connection", "upstream overloaded", "overloaded"],
    ["server_error", "API Error: 500 Internal server error", "server_error"],
    ["rate_limit", "429 overloaded", "rate_limit"],
  ] as const)(
    "refines %s with %j to %s: an overload is named by what happened",
    (kind, text, refined) => {
      expect(refineByText(kind, text)).toBe(refined);
    },
  );

  it("turns reset times into a wait from now", () => {
    expect(retryAfterMsFromReset(NOW_MS / 1000 + 30, NOW_MS)).toBe(30_000);
    expect(retryAfterMsFromReset(NOW_MS + 1500, NOW_MS)).toBe(1500);
    expect(retryAfterMsFromReset("2030-01-01T00:01:00Z", NOW_MS)).toBe(60_000);
    expect(retryAfterMsFromReset(NOW_MS / 1000 - 30, NOW_MS)).toBe(0);
    expect(retryAfterMsFromReset("soon", NOW_MS)).toBeUndefined();
    expect(retryAfterMsFromReset(undefined, NOW_MS)).toBeUndefined();
  });

  it("says how to fix a failed login", () => {
    expect(authError("Invalid API key").message).toContain(AUTH_HINT);
    expect(authError("x").retryable).toBe(false);
  });

  it("describes a crash by its exit and the end of its stderr", () => {
    const stderr = Array.from({ length: 40 }, (_, line) => `line ${line}`).join("\n");
    const crash = crashError({ program: "codex", exitCode: 3, stderr });
    expect(crash.kind).toBe("crash");
    expect(crash.message).toContain("codex exited with code 3");
    expect(crash.message).toContain("line 39");
    expect(crash.message).not.toContain("line 19\n");
    expect(crashError({ program: "opencode", signal: "SIGSEGV" }).message).toContain("SIGSEGV");
  });

  it("builds a response that carries only an error", () => {
    const response = errorResponse(timeoutError(1000), { durationMs: 1000 });
    expect(response).toMatchObject({ text: "", costUsd: 0, durationMs: 1000, toolsUsed: [] });
    expect(response.error?.kind).toBe("timeout");
  });
});
