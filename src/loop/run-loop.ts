import type { CompletionDecision } from "../completion/decide-completion.js";
import { summarizeIteration } from "../completion/summarize-iteration.js";
import type { BackendResponse } from "../ports/backend.js";
import type { CheckFailure } from "../ports/check-failure.js";
import { askCompletion } from "./ask-completion.js";
import { beforeChecks } from "./before-checks.js";
import { checkDeclaration, resumeChecks } from "./check-declaration.js";
import { checkFormat } from "./check-format.js";
import { checkLimits } from "./check-limits.js";
import { declaredBlocked } from "./declared-blocked.js";
import { goToNextStep } from "./end-iteration.js";
import { guardGitState, restoreGitStateBeforeFinish } from "./guard-git-state.js";
import { guardSandbox } from "./guard-sandbox.js";
import { handleFailedCheck, handleUndecidable } from "./handle-failed-check.js";
import { queryView, responseView } from "./plugin-views.js";
import { queryBackend } from "./query-backend.js";
import { readDeclaration } from "./read-declaration.js";
import type { RunContext } from "./run-context.js";
import { startIteration, type Turn } from "./start-iteration.js";
import { takeBaseline } from "./take-baseline.js";
import type { Terminal } from "./terminal-state.js";

/**
 * The loop of docs/loop.md. It leaves only through a terminal state.
 *
 * An iteration is one backend query for the work: the step prompt or a
 * retry prompt (condition, format or undecidable retries all count). Repeats
 * of the same query after a rate limit, overload, timeout or expired session
 * do not count, nor does the closure review query, which belongs to the
 * iteration whose declaration it reviews.
 */
export async function runLoop(run: RunContext): Promise<Terminal> {
  try {
    return await iterate(run);
  } finally {
    // However the loop ended (a query cut off, an abort, a crash), closer's git after it
    // (commit, merge, push) runs with the git state the user had (docs/integrity.md#git-state).
    await restoreGitStateBeforeFinish(run, run.state.iteration);
  }
}

async function iterate(run: RunContext): Promise<Terminal> {
  await takeBaseline(run); // the checks on the untouched tree (docs/integrity.md#baseline)
  const resumed = await resumeChecks(run); // a run stopped during its checks runs them again
  if (resumed) return resumed;
  for (;;) {
    const limit = await checkLimits(run); // abort, budgets, iteration cap (rule 6)
    if (limit) return limit;

    const started = await startIteration(run); // pending retry prompt ?? step prompt (rules 2, 3)
    await run.plugins.call("beforeQuery", queryView(run, started)); // docs/plugins.md#hooks
    const answer = await queryBackend(run, started.query); // waits out rate limits (rules 4, 5)
    if (answer.terminal) return answer.terminal;
    await run.plugins.call("afterResponse", responseView(started, answer.response));
    let read = await readAnswer(run, started, answer.response);
    const words = started.completionStep?.prompt;
    if (started.completionStep && words && !read.guarded && read.decision.decision === "complete") {
      // The completion step's own prompt: its answer is the declaration checked.
      const confirmed = await askCompletion(run, started, started.completionStep, words);
      if (confirmed.terminal) return confirmed.terminal;
      read = await readAnswer(run, confirmed.turn, confirmed.response);
    }
    const { turn, response, decision, guarded } = read;
    if (guarded) {
      const { summary = "" } = summarizeIteration(turn.iteration, response);
      const completion = { summary, checksPassed: [] };
      const end = await handleFailedCheck(run, turn, response, {
        complete: false,
        failure: guarded,
        completion,
        undeclared: decision.decision !== "complete",
      });
      if (end) return end;
      continue;
    }
    if (decision.decision === "incomplete") {
      goToNextStep(run, turn, response, { decision }); // rule 1: no signal, no checks
      continue;
    }
    if (decision.decision === "blocked") return declaredBlocked(run, turn, response, decision);
    if (decision.decision === "undecidable") {
      const end = await handleUndecidable(run, turn, response, decision); // INCOMPLETE + retry
      if (end) return end;
      continue;
    }

    const declaration = await beforeChecks(run, turn, response); // closer's step first (autoCommit)
    if ((await checkFormat(run, turn, response)) === "retry") continue; // format retries

    // validators, review, external conditions → completed, or onFailure
    const end = await checkDeclaration(run, turn, response, declaration);
    if (end) return end;
  }
}

/** A query's answer, with what the guards found after it and the declaration it makes. */
interface ReadAnswer {
  readonly turn: Turn;
  readonly response: BackendResponse;
  readonly guarded: CheckFailure | undefined;
  readonly decision: CompletionDecision;
}

async function readAnswer(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<ReadAnswer> {
  // Before closer's own git runs again: the git state put back (docs/integrity.md#git-state);
  // then what the OS sandbox refused the model's processes (docs/sandbox.md#refusals).
  const gitChanged = await guardGitState(run, turn.iteration);
  const refused = await guardSandbox(run, turn.iteration);
  const decision = await readDeclaration(run, turn, response); // docs/completion.md#decision-channels
  return { turn, response, guarded: gitChanged ?? refused, decision };
}
