/**
 * The contract every Backend keeps (docs/style.md#principle-7), as one suite run
 * against each implementation with its own protocol-faithful fake: structured
 * output, session continuation, timeout that ends the whole process group,
 * 429 reported as a retryable rate limit, cancellation through the signal.
 *
 *   describeBackendContract("claude-sdk", makeHarness);
 *   describeBackendContract("command", makeHarness, { sessions: false });
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Backend, BackendRequest } from "../src/ports/backend.js";
import type { JsonSchema } from "../src/ports/runner-config.js";
import { isProcessAlive, waitFor } from "./doubles/fake-claude/process-liveness.js";

/** A scripted answer, in terms every backend's fake can play. */
export type ContractTurn =
  /** Answers with this object as its structured output (or its decision channel's equivalent). */
  | { readonly kind: "structured"; readonly output: Readonly<Record<string, unknown>> }
  /** Answers with plain text. */
  | { readonly kind: "text"; readonly text: string }
  /** The model API answers 429 (after the backend's own retries, if any). */
  | { readonly kind: "rate_limit" }
  /** Never answers, and starts a child process that must not outlive the query. */
  | { readonly kind: "hang" };

/** What the fake saw of one query. */
export interface ObservedQuery {
  /** The session id the backend asked to continue; undefined for a new session. */
  readonly resumedSessionId?: string;
  /** The backend's process and every process it started. */
  readonly pids: readonly number[];
}

/** How a test drives one backend through its fake. */
export interface BackendContractHarness {
  /** The backend under test, wired to its fake. */
  readonly backend: Backend;
  /** Sets the answers of the next queries, in order. */
  script(turns: readonly ContractTurn[]): Promise<void>;
  /** A complete request for the fake; the suite overrides what each test is about. */
  request(overrides?: Partial<BackendRequest>): BackendRequest;
  /** The queries the fake has seen so far, in order. */
  observed(): Promise<readonly ObservedQuery[]>;
  cleanup(): Promise<void>;
}

export interface BackendContractOptions {
  /** False for backends without sessions: the continuation test is skipped. Default true. */
  readonly sessions?: boolean;
  /** False for backends that cannot return structured output. Default true. */
  readonly structuredOutput?: boolean;
  /** False for backends that start no process (the timeout and cancel tests need one). Default true. */
  readonly processes?: boolean;
  /** Timeout of the hanging query. Default 1500. */
  readonly timeoutMs?: number;
}

/** The schema of the structured-output test. */
export const CONTRACT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    status: { type: "string", enum: ["completed", "in_progress"] },
    summary: { type: "string" },
  },
  required: ["status", "summary"],
  additionalProperties: false,
};

async function expectAllGone(pids: readonly number[]): Promise<void> {
  const gone = await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), 2000);
  expect(pids.filter(isProcessAlive), "processes left running").toEqual([]);
  expect(gone).toBe(true);
}

export function describeBackendContract(
  name: string,
  makeHarness: () => Promise<BackendContractHarness>,
  options: BackendContractOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 1500;

  describe(`${name} keeps the backend contract`, () => {
    let harness: BackendContractHarness;
    beforeEach(async () => {
      harness = await makeHarness();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it.skipIf(options.structuredOutput === false)(
      "returns the structured output it was asked for",
      async () => {
        const output = { status: "completed", summary: "all tests pass" };
        await harness.script([{ kind: "structured", output }]);
        const response = await harness.backend.query(harness.request({ schema: CONTRACT_SCHEMA }));
        expect(response.error).toBeUndefined();
        expect(response.structuredOutput).toEqual(output);
        expect(response.costUsd).toBeGreaterThanOrEqual(0);
        expect(response.durationMs).toBeGreaterThanOrEqual(0);
        expect(Array.isArray(response.toolsUsed)).toBe(true);
        expect(response.transcript.length).toBeGreaterThan(0);
      },
    );

    it.skipIf(options.sessions === false)("continues a session when given its id", async () => {
      await harness.script([
        { kind: "text", text: "first" },
        { kind: "text", text: "second" },
      ]);
      const first = await harness.backend.query(harness.request());
      expect(first.error).toBeUndefined();
      expect(first.sessionId).toEqual(expect.any(String));
      const second = await harness.backend.query(harness.request({ sessionId: first.sessionId }));
      expect(second.error).toBeUndefined();
      const observed = await harness.observed();
      expect(observed.map((query) => query.resumedSessionId)).toEqual([undefined, first.sessionId]);
      expect(second.sessionId).toBe(first.sessionId);
    });

    it("reports a 429 as a retryable rate limit", async () => {
      await harness.script([{ kind: "rate_limit" }]);
      const response = await harness.backend.query(harness.request());
      expect(response.error?.kind).toBe("rate_limit");
      expect(response.error?.retryable).toBe(true);
    });

    it.skipIf(options.processes === false)("times out and leaves no process running", async () => {
      await harness.script([{ kind: "hang" }]);
      const response = await harness.backend.query(harness.request({ timeoutMs }));
      expect(response.error?.kind).toBe("timeout");
      expect(response.error?.retryable).toBe(true);
      const [query] = await harness.observed();
      expect(query?.pids.length).toBeGreaterThanOrEqual(2);
      await expectAllGone(query?.pids ?? []);
    });

    it.skipIf(options.processes === false)(
      "stops when the signal aborts and leaves no process running",
      async () => {
        await harness.script([{ kind: "hang" }]);
        const controller = new AbortController();
        const pending = harness.backend.query(
          harness.request({ signal: controller.signal, timeoutMs: 60_000 }),
        );
        const started = await waitFor(async () => {
          const [query] = await harness.observed();
          return (query?.pids.length ?? 0) >= 2;
        }, 20_000);
        expect(started).toBe(true);
        controller.abort();
        const response = await pending;
        expect(response.error?.kind).toBe("aborted");
        expect(response.error?.retryable).toBe(false);
        const [query] = await harness.observed();
        await expectAllGone(query?.pids ?? []);
      },
    );
  });
}
