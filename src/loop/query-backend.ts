import { resolve } from "node:path";
import { makeBackendError } from "../backends/backend-errors.js";
import type { BackendRequest, BackendResponse } from "../ports/backend.js";
import type { SandboxEntry } from "../ports/loop-ports.js";
import { addReceipt, repeatReason } from "../ports/receipt-reason.js";
import { appendSchemaInstructions } from "../prompts/schema-instructions.js";
import { renderIterationSummary } from "../prompts/variables.js";
import { makeRepeats, recoveryFor, terminalFor, waitBeforeRepeat } from "./backend-recovery.js";
import { baselineStopped } from "./baseline-checks.js";
import { budgetLeft, budgetSpentInQuery } from "./check-limits.js";
import type { Query } from "./query.js";
import { type DeadlineAnswer, queryWithDeadline } from "./query-deadline.js";
import { reportToolCalls } from "./report-tool-calls.js";
import { emit, keep, type RunContext, updateState, waitForState } from "./run-context.js";
import { abortedWhen, isTerminal, type Terminal } from "./terminal-state.js";
import { warnOfUnreportedCost } from "./unreported-cost.js";

export type QueryOutcome =
  | { readonly response: BackendResponse; readonly terminal?: undefined }
  | { readonly terminal: Terminal };

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
export async function queryBackend(run: RunContext, asked: Query): Promise<QueryOutcome> {
  const query = withSchemaInstructions(run, asked);
  let sessionId = continues(run, query) ? run.state.sessionId : undefined;
  let prompt = query.prompt;
  let reason = query.reason;
  const repeats = makeRepeats(run, query);
  for (;;) {
    // A check of the baseline beside the first query that cannot run ends the run (docs/integrity.md#cannot-run).
    const broken = await baselineStopped(run);
    if (broken) return { terminal: broken };
    const { response, budgetSpent, refused } = await queryOnce(run, query, {
      prompt,
      sessionId,
      reason,
    });
    if (run.signal.aborted) return { terminal: abortedWhen(run, `during ${queryName(query)}`) };
    const stopped = await baselineStopped(run);
    if (stopped) return { terminal: stopped };
    // Stopped for a refused connection: the guard after the query fails the attempt for it.
    if (refused) return { response };
    if (budgetSpent !== undefined) return { terminal: budgetSpentInQuery(run, budgetSpent) };
    const error = response.error;
    if (error === undefined) return { response };
    const recovery = recoveryFor(error);
    if (recovery === "accept") return { response };
    if (recovery === "end") return { terminal: terminalFor(error) };
    reason = repeatReason(error.kind);
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
    const wait = repeats.next(error, recovery);
    if (isTerminal(wait)) return { terminal: wait };
    const waitEnd = await waitBeforeRepeat(run, query.iteration, error, wait);
    if (waitEnd) return { terminal: waitEnd };
  }
}

/**
 * A backend that cannot hold the model to the schema gets it in the prompt
 * (docs/backends.md#schema-instructions); the record keeps the prompt as sent.
 */
function withSchemaInstructions(run: RunContext, query: Query): Query {
  const backend = query.backend?.backend ?? run.ports.backend;
  if (query.schema === undefined || backend.enforcesSchema) return query;
  const prompt = appendSchemaInstructions(query.prompt, query.schema);
  keep(run.ports.record.savePrompt(query.iteration, prompt, query.label));
  return { ...query, prompt };
}

/** Whether the query goes on in the run's session, and the run keeps the session it answers in. */
function continues(run: RunContext, query: Query): boolean {
  return run.agent.runner.backend.sessionPolicy === "continue" && query.freshSession !== true;
}

/** `the query of iteration 2`, `the closure-review query of iteration 2`. */
function queryName(query: Query): string {
  return `the ${query.label === undefined ? "" : `${query.label} `}query of iteration ${query.iteration}`;
}

function withSummary(run: RunContext, prompt: string): string {
  const summary = run.state.previousSummary;
  if (summary === undefined) return prompt;
  return `${renderIterationSummary(summary)}\n\n${prompt}`;
}

/** One sending of a query: its prompt, session and reason may differ from the query's on a repeat. */
interface Sending {
  readonly prompt: string;
  readonly sessionId: string | undefined;
  readonly reason: string;
}

async function queryOnce(
  run: RunContext,
  query: Query,
  sending: Sending,
): Promise<DeadlineAnswer & { readonly refused: boolean }> {
  const { prompt, sessionId } = sending;
  const backend = query.backend?.backend ?? run.ports.backend;
  // The query carries its step's model (stepModel); a review's own backend, its own.
  const model = query.backend === undefined ? query.model : query.backend.model;
  await waitForState(run);
  emit(run, {
    type: "backend-start",
    iteration: query.iteration,
    backend: backend.name,
    ...(model === undefined ? {} : { model }),
    ...(sessionId === undefined ? {} : { sessionId }),
  });
  const sandbox = await run.ports.sandbox?.enter("backend");
  const request = requestFor(run, query, { prompt, sessionId, model }, sandbox);
  const answer = await queryWithDeadline(backend, request, budgetLeft(run)).finally(() =>
    sandbox?.leave(),
  );
  // A query stopped mid-way may not know its cost: what it reported while running still counts.
  const refused = sandbox?.refused?.aborted === true;
  const response = {
    ...answer.response,
    costUsd: Math.max(answer.response.costUsd, answer.runningCostUsd),
    ...(refused ? { error: makeBackendError("aborted", String(sandbox?.refused?.reason)) } : {}),
  };
  addToTotals(run, response, continues(run, query), sending.reason);
  if (query.backend === undefined) warnOfUnreportedCost(run, query.iteration, response);
  recordAnswer(run, query, { backendName: backend.name, reason: sending.reason }, response);
  return { ...answer, response, refused };
}

/** The backend request of one query: the runner's tools unless the query brings its own. */
function requestFor(
  run: RunContext,
  query: Query,
  sent: { prompt: string; sessionId: string | undefined; model: string | undefined },
  sandbox: SandboxEntry | undefined,
): BackendRequest & { signal: AbortSignal } {
  const { runner } = run.agent;
  const { prompt, sessionId, model } = sent;
  return {
    prompt,
    ...(query.schema === undefined ? {} : { schema: query.schema }),
    ...(sessionId === undefined ? {} : { sessionId }),
    cwd: run.workTree,
    ...(model === undefined ? {} : { model }),
    allowedTools: runner.backend.allowedTools,
    disallowedTools: runner.backend.disallowedTools,
    permissionMode: runner.backend.permissionMode,
    ...query.tools,
    ...(run.systemPrompt === undefined ? {} : { systemPrompt: run.systemPrompt }),
    protectedPaths: protectedPathsOf(run),
    env: {
      CLOSER_CHECK_ID: query.checkId,
      CLOSER_DECISION_FILE: run.decisionPath,
      CLOSER_RUN_ID: run.runId,
    },
    timeoutMs: runner.budgets.queryTimeoutMs,
    onToolCall: reportToolCalls(run, query.iteration),
    signal: querySignal(run, sandbox),
    ...(sandbox === undefined ? {} : { sandbox: sandbox.wrapper, tempDir: sandbox.tempDir }),
  };
}

/**
 * What stops a query besides the run's abort: a refused connection
 * (docs/sandbox.md#refused-connection), a check of the baseline beside it that cannot run.
 */
function querySignal(run: RunContext, sandbox: SandboxEntry | undefined): AbortSignal {
  const stops = [sandbox?.refused, run.baselineChecks?.stopped].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  return stops.length === 0 ? run.signal : AbortSignal.any([run.signal, ...stops]);
}

/** The answer in the record: `backend-end`, what the model tried past the boundary, what it left running, the transcript. */
function recordAnswer(
  run: RunContext,
  query: Query,
  { backendName, reason }: { readonly backendName: string; readonly reason: string },
  response: BackendResponse,
): void {
  emit(run, {
    type: "backend-end",
    iteration: query.iteration,
    reason,
    durationMs: response.durationMs,
    costUsd: response.costUsd,
    totalCostUsd: run.state.totals.costUsd,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
    ...(response.sessionId === undefined ? {} : { sessionId: response.sessionId }),
    hasStructuredOutput: response.structuredOutput !== undefined,
    ...(response.error === undefined ? {} : { error: response.error }),
  });
  for (const command of response.boundaryAttempts ?? []) {
    emit(run, {
      type: "boundary-attempt",
      iteration: query.iteration,
      command,
      backend: backendName,
    });
  }
  for (const left of response.leftRunning ?? []) {
    emit(run, {
      type: "warning",
      iteration: query.iteration,
      message: `process ${left.pid} (${left.command}) left the model's process group and was still running when the query ended; closer did not stop it`,
    });
  }
  keep(run.ports.record.saveTranscript(query.iteration, response.transcript, query.label));
}

function addToTotals(
  run: RunContext,
  response: BackendResponse,
  continued: boolean,
  reason: string,
): void {
  const { totals } = run.state;
  const usage = response.usage;
  const keepSession = continued && response.sessionId;
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
      costByReason: addReceipt(totals.costByReason, reason, response),
    },
    ...(keepSession ? { sessionId: response.sessionId } : {}),
  });
}

/** The protected files of the baseline, as absolute paths (package.json's scripts are compared, not denied). */
function protectedPathsOf(run: RunContext): string[] {
  const files = Object.keys(run.state.baseline?.protectedFiles ?? {});
  return files.filter((file) => !file.includes(" › ")).map((file) => resolve(run.workTree, file));
}
