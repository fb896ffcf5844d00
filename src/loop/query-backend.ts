import { errorResponse, makeBackendError } from "../backends/backend-errors.js";
import type { JsonSchema } from "../definition/types.js";
import type { BackendError, BackendRequest, BackendResponse } from "../ports.js";
import { renderIterationSummary } from "../prompts/variables.js";
import { BACKOFF_LIMITS, backoffMs, transientBackoffMs } from "./backoff.js";
import { emit, keep, type RunContext, updateState, waitForState } from "./run-context.js";
import { failed, stopped, type Terminal } from "./terminal-state.js";

/** One query of an iteration. */
export interface Query {
  readonly iteration: number;
  readonly prompt: string;
  readonly schema?: JsonSchema;
  readonly checkId: string;
  readonly model?: string;
  /** Names an extra query of the iteration in the record (e.g. `closure-review`). */
  readonly label?: string;
}

export type QueryOutcome =
  | { readonly response: BackendResponse; readonly terminal?: undefined }
  | { readonly terminal: Terminal };

/** Time a backend gets past its own timeout before the loop stops waiting for it (at most). */
const DEADLINE_GRACE_MS = 5_000;

type Recovery = "wait" | "wait-out" | "repeat" | "new-session" | "accept" | "end";

/** An overloaded or unreachable model API: waited out up to runner.budgets.transientWaitMs. */
const TRANSIENT_KINDS: ReadonlySet<BackendError["kind"]> = new Set([
  "overloaded",
  "server_error",
  "connection",
]);

function recoveryFor(error: BackendError): Recovery {
  if (error.kind === "rate_limit") return "wait";
  if (TRANSIENT_KINDS.has(error.kind)) return "wait-out";
  if (error.kind === "timeout") return "repeat";
  if (error.kind === "session_expired") return "new-session";
  // The query ran out of turns: what it did stands, the loop reads its declaration as usual.
  if (error.kind === "max_turns") return "accept";
  return error.retryable ? "repeat" : "end";
}

function terminalFor(error: BackendError): Terminal {
  const reason = `backend ${error.kind}: ${error.message}`;
  if (error.kind === "aborted") return stopped("aborted", reason);
  if (error.kind === "max_budget") return stopped("budget_exhausted", reason);
  if (error.kind === "auth") return failed("auth_error", reason);
  if (error.kind === "config") return failed("config_error", reason);
  return failed("backend_error", reason);
}

/**
 * Sends a query and gets an answer the loop can use (docs/loop.md#rule-4, docs/loop.md#rule-5 and
 * docs/loop.md#error-classes). A rate limit waits (exponential backoff, or the reset
 * time the backend gave) and repeats; an overloaded or unreachable model API
 * is waited out (backoff with jitter) up to `runner.budgets.transientWaitMs`;
 * a timeout repeats a bounded number of times; an expired session is dropped
 * and the query repeated in a new one with the previous summary. None of
 * these repeats counts as an iteration or a retry attempt. Anything
 * unrecoverable ends the run.
 */
export async function queryBackend(run: RunContext, query: Query): Promise<QueryOutcome> {
  let sessionId =
    run.agent.runner.backend.sessionPolicy === "continue" ? run.state.sessionId : undefined;
  let prompt = query.prompt;
  let waits = 0;
  let repeats = 0;
  const waitedOut = { attempts: 0, waitedMs: 0 };
  for (;;) {
    const response = await queryOnce(run, query, prompt, sessionId);
    if (run.signal.aborted) return { terminal: stopped("aborted", "the run was aborted") };
    const error = response.error;
    if (error === undefined) return { response };
    const recovery = recoveryFor(error);
    if (recovery === "accept") return { response };
    if (recovery === "end") return { terminal: terminalFor(error) };
    if (recovery === "new-session") {
      if (sessionId === undefined) return { terminal: terminalFor(error) };
      sessionId = undefined;
      prompt = withSummary(run, query.prompt);
      updateState(run, { sessionId: undefined });
      emit(run, {
        type: "warning",
        iteration: query.iteration,
        message: "the session expired; continuing in a new one",
      });
      continue;
    }
    if (recovery === "wait-out") {
      const waitMs = transientBackoffMs(
        waitedOut.attempts,
        error.retryAfterMs,
        run.ports.clock.random(),
      );
      if (waitedOut.waitedMs + waitMs > run.agent.runner.budgets.transientWaitMs) {
        return { terminal: endWaitingOut(run, query, error, waitedOut.waitedMs) };
      }
      const waitEnd = await waitBeforeRepeat(run, query.iteration, error, {
        waitMs,
        attempt: waitedOut.attempts,
      });
      if (waitEnd) return { terminal: waitEnd };
      waitedOut.attempts += 1;
      waitedOut.waitedMs += waitMs;
      continue;
    }
    const count = recovery === "wait" ? waits++ : repeats++;
    const limit =
      recovery === "wait" ? BACKOFF_LIMITS.maxRateLimitWaits : BACKOFF_LIMITS.maxTimeoutRepeats;
    if (count >= limit) {
      return {
        terminal: failed(
          "backend_error",
          `backend ${error.kind} ${count + 1} times in a row: ${error.message}`,
        ),
      };
    }
    const waitMs = backoffMs(count, error.kind === "rate_limit" ? error.retryAfterMs : undefined);
    const waitEnd = await waitBeforeRepeat(run, query.iteration, error, { waitMs, attempt: count });
    if (waitEnd) return { terminal: waitEnd };
  }
}

/**
 * The model API stayed overloaded or unreachable past the horizon: the run
 * ends with `error`, and run.json is left at the iteration before this one,
 * so `--resume` sends the same iteration again.
 */
function endWaitingOut(
  run: RunContext,
  query: Query,
  error: BackendError,
  waitedMs: number,
): Terminal {
  updateState(run, { iteration: query.iteration - 1 });
  const horizon = run.agent.runner.budgets.transientWaitMs;
  return failed(
    "backend_error",
    `backend ${error.kind} after waiting ${Math.round(waitedMs / 1000)} s (runner.budgets.transientWaitMs is ${horizon} ms): ${error.message} — resume this iteration later with: closer run ${run.agent.name} --resume ${run.runId}`,
  );
}

async function waitBeforeRepeat(
  run: RunContext,
  iteration: number,
  error: BackendError,
  { waitMs, attempt }: { readonly waitMs: number; readonly attempt: number },
): Promise<Terminal | undefined> {
  const { maxWallTimeMs } = run.agent.runner.budgets;
  const elapsedMs = run.ports.clock.now() - run.startedAtMs;
  if (maxWallTimeMs !== undefined && elapsedMs + waitMs > maxWallTimeMs) {
    return stopped(
      "budget_exhausted",
      `waiting ${waitMs} ms after a backend ${error.kind} would exceed the wall-time budget`,
    );
  }
  emit(run, {
    type: "backend-wait",
    iteration,
    reason: error.kind,
    waitMs,
    attempt: attempt + 1,
  });
  try {
    await run.ports.clock.sleep(waitMs, run.signal);
  } catch {
    return stopped("aborted", "the run was aborted while waiting for the backend");
  }
  return undefined;
}

function withSummary(run: RunContext, prompt: string): string {
  const summary = run.state.previousSummary;
  if (summary === undefined) return prompt;
  return `${renderIterationSummary(summary)}\n\n${prompt}`;
}

async function queryOnce(
  run: RunContext,
  query: Query,
  prompt: string,
  sessionId: string | undefined,
): Promise<BackendResponse> {
  const { backend, record } = run.ports;
  const { runner } = run.agent;
  const model = query.model ?? runner.backend.model;
  await waitForState(run);
  emit(run, {
    type: "backend-start",
    iteration: query.iteration,
    backend: backend.name,
    ...(model === undefined ? {} : { model }),
    ...(sessionId === undefined ? {} : { sessionId }),
  });
  const response = await queryWithDeadline(run, {
    prompt,
    ...(query.schema === undefined ? {} : { schema: query.schema }),
    ...(sessionId === undefined ? {} : { sessionId }),
    cwd: run.cwd,
    ...(model === undefined ? {} : { model }),
    allowedTools: runner.backend.allowedTools,
    disallowedTools: runner.backend.disallowedTools,
    permissionMode: runner.backend.permissionMode,
    ...(run.systemPrompt === undefined ? {} : { systemPrompt: run.systemPrompt }),
    env: {
      CLOSER_CHECK_ID: query.checkId,
      CLOSER_DECISION_FILE: run.decisionPath,
      CLOSER_RUN_ID: run.runId,
    },
    timeoutMs: runner.budgets.queryTimeoutMs,
    signal: run.signal,
  });
  addToTotals(run, response);
  emit(run, {
    type: "backend-end",
    iteration: query.iteration,
    durationMs: response.durationMs,
    costUsd: response.costUsd,
    totalCostUsd: run.state.totals.costUsd,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
    ...(response.sessionId === undefined ? {} : { sessionId: response.sessionId }),
    hasStructuredOutput: response.structuredOutput !== undefined,
    ...(response.error === undefined ? {} : { error: response.error }),
  });
  keep(record.saveTranscript(query.iteration, response.transcript, query.label));
  return response;
}

/**
 * Every wait is bounded even when a backend ignores its own timeout: past the
 * timeout and a grace period the query is aborted and answered as a timeout.
 * A backend that throws (it should answer with an error) is answered as a crash.
 */
async function queryWithDeadline(
  run: RunContext,
  request: Omit<BackendRequest, "signal"> & { signal: AbortSignal },
): Promise<BackendResponse> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  // An abort that came while the query was being prepared has already fired its event.
  if (request.signal.aborted) stop();
  else request.signal.addEventListener("abort", stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<BackendResponse>((settle) => {
    timer = setTimeout(() => {
      controller.abort();
      settle(
        errorResponse(makeBackendError("timeout", `no answer within ${request.timeoutMs} ms`)),
      );
    }, request.timeoutMs + Math.min(DEADLINE_GRACE_MS, request.timeoutMs));
  });
  const answer = run.ports.backend
    .query({ ...request, signal: controller.signal })
    .catch((error: unknown) =>
      errorResponse(
        makeBackendError(
          "crash",
          `the backend failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ),
    );
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener("abort", stop);
  }
}

function addToTotals(run: RunContext, response: BackendResponse): void {
  const { totals } = run.state;
  const usage = response.usage;
  const keepSession = run.agent.runner.backend.sessionPolicy === "continue" && response.sessionId;
  updateState(run, {
    totals: {
      costUsd: totals.costUsd + response.costUsd,
      backendMs: totals.backendMs + response.durationMs,
      usage: {
        inputTokens: totals.usage.inputTokens + (usage?.inputTokens ?? 0),
        outputTokens: totals.usage.outputTokens + (usage?.outputTokens ?? 0),
        cacheReadTokens: totals.usage.cacheReadTokens + (usage?.cacheReadTokens ?? 0),
        cacheCreationTokens: totals.usage.cacheCreationTokens + (usage?.cacheCreationTokens ?? 0),
      },
    },
    ...(keepSession ? { sessionId: response.sessionId } : {}),
  });
}
