import { afterEach, describe, expect, it } from "vitest";
import {
  type ClaudeSdkTestSetup,
  setUpClaudeSdk,
} from "../../../test/doubles/fake-claude/claude-sdk-harness.js";
import { AUTH_HINT } from "../backend-errors.js";

const SCHEMA = {
  type: "object",
  properties: { status: { type: "string", enum: ["completed", "in_progress"] } },
  required: ["status"],
};
const NOW_MS = Date.parse("2030-01-01T00:00:00Z");

describe("claude-sdk backend classifies what went wrong into fields", () => {
  let setup: ClaudeSdkTestSetup | undefined;
  const start = async () => {
    setup = await setUpClaudeSdk({ backendOptions: { now: () => NOW_MS } });
    return setup;
  };
  afterEach(async () => {
    await setup?.cleanup();
    setup = undefined;
  });

  it("reports each 429 as a retryable rate limit until an answer comes", async () => {
    const { fake, backend, request } = await start();
    await fake.script([
      { outcome: "rate_limit" },
      { outcome: "rate_limit", apiRetries: 0 },
      { structuredOutput: { status: "completed" } },
    ]);
    const responses = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      responses.push(await backend.query(request({ schema: SCHEMA })));
    }
    expect(responses.map((response) => response.error?.kind)).toEqual([
      "rate_limit",
      "rate_limit",
      undefined,
    ]);
    expect(responses.slice(0, 2).every((response) => response.error?.retryable)).toBe(true);
    expect(responses[2]?.structuredOutput).toEqual({ status: "completed" });
  });

  it("waits until the reset time when the rate limit gives one", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "rate_limit", resetsAt: NOW_MS / 1000 + 90 }]);
    const response = await backend.query(request());
    expect(response.error).toMatchObject({
      kind: "rate_limit",
      retryable: true,
      retryAfterMs: 90_000,
    });
  });

  it("answers that recovered after API retries are not errors", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ apiRetries: 2, retryStatus: 529, text: "recovered" }]);
    const response = await backend.query(request());
    expect(response.error).toBeUndefined();
    expect(response.text).toBe("recovered");
  });

  it("reports an overloaded API as retryable", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "overloaded" }]);
    const response = await backend.query(request());
    expect(response.error).toMatchObject({ kind: "overloaded", retryable: true });
  });

  it("reports a failed login as not retryable, with how to log in", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "auth" }]);
    const response = await backend.query(request());
    expect(response.error).toMatchObject({ kind: "auth", retryable: false });
    expect(response.error?.message).toContain(AUTH_HINT);
    expect(AUTH_HINT).toContain("claude /login");
    expect(AUTH_HINT).toContain("ANTHROPIC_API_KEY");
  });

  it("leaves a missing structured output to the format retry: no output, no error", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ text: "I forgot the schema." }]);
    const response = await backend.query(request({ schema: SCHEMA }));
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toBeUndefined();
    expect(response.text).toBe("I forgot the schema.");
  });

  it("drops structured output that does not fit the schema, noting why in the transcript", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ structuredOutput: { status: "finished" } }]);
    const response = await backend.query(request({ schema: SCHEMA }));
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toBeUndefined();
    expect(response.transcript.at(-1)).toMatchObject({
      type: "closer",
      subtype: "structured_output_invalid",
    });
  });

  it("leaves exhausted structured-output retries to the format retry too", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "structured_output_retries" }]);
    const response = await backend.query(request({ schema: SCHEMA }));
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toBeUndefined();
  });

  it("reports the turn limit and the budget limit", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "max_turns" }, { outcome: "max_budget" }]);
    const turns = await backend.query(request());
    const budget = await backend.query(request());
    expect(turns.error).toMatchObject({ kind: "max_turns", retryable: false });
    expect(budget.error).toMatchObject({ kind: "max_budget", retryable: false });
  });

  it("reports an error during execution with the executable's words", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "execution_error", errorMessage: "tool registry failed" }]);
    const response = await backend.query(request());
    expect(response.error?.kind).toBe("unknown");
    expect(response.error?.message).toContain("tool registry failed");
  });

  it("reports an executable that dies without a result as a crash, with its stderr", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ outcome: "crash", errorMessage: "segmentation fault in the fake" }]);
    const response = await backend.query(request());
    expect(response.error).toMatchObject({ kind: "crash", retryable: false });
    expect(response.error?.message).toContain("segmentation fault in the fake");
    expect(response.error?.message).toContain("code 2");
  });

  it("reports a session the executable does not know as expired, to start a new one", async () => {
    const { fake, backend, request } = await start();
    await fake.script([{ text: "fresh start" }]);
    const expired = await backend.query(
      request({ sessionId: "4c1f0d0e-0000-4000-8000-000000000000" }),
    );
    expect(expired.error).toMatchObject({ kind: "session_expired", retryable: true });
    expect(expired.sessionId).toBeUndefined();
    const fresh = await backend.query(request());
    expect(fresh.error).toBeUndefined();
    expect(fresh.text).toBe("fresh start");
  });
});
