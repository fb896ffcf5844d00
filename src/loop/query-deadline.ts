import { errorResponse, makeBackendError } from "../backends/backend-errors.js";
import type { Backend, BackendRequest, BackendResponse } from "../ports/backend.js";

/** Time a backend gets past its own timeout before the loop stops waiting for it (at most). */
const DEADLINE_GRACE_MS = 5_000;

/** What is left of the run's budgets when a query starts (docs/loop.md#budgets). */
export interface QueryBudget {
  /** What is left of `maxWallTimeMs`; undefined without one. */
  readonly timeLeftMs?: number;
  /** What is left of `maxCostUsd`; undefined without one. */
  readonly costLeftUsd?: number;
}

/** A backend's answer, and which budget stopped it when one did. */
export interface DeadlineAnswer {
  readonly response: BackendResponse;
  readonly budgetSpent?: "time" | "cost";
  /** The highest running cost the backend reported during the query (0 when it reported none). */
  readonly runningCostUsd: number;
}

/**
 * Every wait is bounded even when a backend ignores its own timeout: past the
 * timeout and a grace period the query is aborted and answered as a timeout.
 * The run's budgets end a query under way (docs/loop.md#budgets): what is
 * left of the wall time, and the running cost a backend reports through
 * `onCost`, abort it (the backend ends its process group) and the answer says
 * which budget did. A backend that throws (it should answer with an error) is
 * answered as a crash.
 */
export async function queryWithDeadline(
  backend: Backend,
  request: Omit<BackendRequest, "signal" | "onCost"> & { signal: AbortSignal },
  budget: QueryBudget,
): Promise<DeadlineAnswer> {
  const controller = new AbortController();
  let budgetSpent: DeadlineAnswer["budgetSpent"];
  let runningCostUsd = 0;
  const timers: NodeJS.Timeout[] = [];
  let cutOff: (response: BackendResponse) => void = () => {};
  const deadline = new Promise<BackendResponse>((settle) => {
    cutOff = settle;
  });
  const stop = () => controller.abort();
  const spend = (which: "time" | "cost") => {
    if (budgetSpent !== undefined) return;
    budgetSpent = which;
    stop();
    // The backend answers an abort at once; one that does not is cut off after the grace.
    const graceMs = Math.min(DEADLINE_GRACE_MS, request.timeoutMs);
    timers.push(setTimeout(() => cutOff(errorResponse(abortedBy(which))), graceMs));
  };
  // An abort that came while the query was being prepared has already fired its event.
  if (request.signal.aborted) stop();
  else request.signal.addEventListener("abort", stop, { once: true });
  const cutOffMs = request.timeoutMs + Math.min(DEADLINE_GRACE_MS, request.timeoutMs);
  timers.push(
    setTimeout(() => {
      controller.abort();
      cutOff(
        errorResponse(makeBackendError("timeout", `no answer within ${request.timeoutMs} ms`)),
      );
    }, cutOffMs),
  );
  const { timeLeftMs, costLeftUsd } = budget;
  if (timeLeftMs !== undefined && timeLeftMs < request.timeoutMs) {
    timers.push(setTimeout(() => spend("time"), Math.max(0, timeLeftMs)));
  }
  const onCost = (costUsd: number) => {
    runningCostUsd = Math.max(runningCostUsd, costUsd);
    if (costLeftUsd !== undefined && runningCostUsd >= costLeftUsd) spend("cost");
  };
  const answer = backend
    .query({ ...request, signal: controller.signal, onCost })
    .catch((error: unknown) =>
      errorResponse(
        makeBackendError(
          "crash",
          `the backend failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ),
    );
  try {
    const response = await Promise.race([answer, deadline]);
    return { response, ...(budgetSpent === undefined ? {} : { budgetSpent }), runningCostUsd };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    request.signal.removeEventListener("abort", stop);
  }
}

function abortedBy(which: "time" | "cost") {
  return makeBackendError(
    "aborted",
    `the query was stopped: the ${which === "time" ? "wall-time" : "cost"} budget is spent`,
  );
}
