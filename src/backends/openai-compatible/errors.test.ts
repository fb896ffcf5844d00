import { APICallError, RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { backendErrorOf } from "./errors.js";

function callError(statusCode: number, headers: Record<string, string> = {}, body = "") {
  return new APICallError({
    message: `status ${statusCode}`,
    url: "http://127.0.0.1/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
  });
}

describe("backendErrorOf", () => {
  it("makes a 429 a rate limit that waits as long as retry-after says", () => {
    const error = backendErrorOf(callError(429, { "retry-after": "7" }));
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 7000 });
  });

  it("makes 401 and 403 an auth error that is not repeated", () => {
    for (const status of [401, 403]) {
      const error = backendErrorOf(callError(status));
      expect(error).toMatchObject({ kind: "auth", retryable: false });
      expect(error.message).toContain("apiKeyEnv");
    }
  });

  it("makes a 404 a configuration error that points at baseURL and model", () => {
    const error = backendErrorOf(callError(404));
    expect(error).toMatchObject({ kind: "config", retryable: false });
    expect(error.message).toContain("runner.backend.baseURL");
    expect(error.message).toContain("/v1");
  });

  it("tells an overloaded server from another 5xx", () => {
    expect(backendErrorOf(callError(503, {}, '{"error":"model overloaded"}')).kind).toBe(
      "overloaded",
    );
    expect(backendErrorOf(callError(500)).kind).toBe("server_error");
  });

  it("reads the last error inside the SDK's retry wrapper, and a refused connection by its text", () => {
    const wrapped = new RetryError({
      message: "failed after 1 attempt",
      reason: "maxRetriesExceeded",
      errors: [callError(429, { "retry-after": "2" })],
    });
    expect(backendErrorOf(wrapped)).toMatchObject({ kind: "rate_limit", retryAfterMs: 2000 });
    expect(backendErrorOf(new TypeError("fetch failed")).kind).toBe("connection");
  });
});
