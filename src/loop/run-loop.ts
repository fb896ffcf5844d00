import { stopUnneededBaseline } from "./baseline-checks.js";
import { beforeChecks } from "./before-checks.js";
import { answerInChecks, answerToFinish, checkDeclaration } from "./check-declaration.js";
import { checkFormat } from "./check-format.js";
import { checkLimits } from "./check-limits.js";
import { endIteration } from "./end-iteration.js";
import { restoreGitStateBeforeFinish } from "./guard-git-state.js";
import { iterationDiffsKept } from "./keep-iteration-diff.js";
import { queryView, responseView } from "./plugin-views.js";
import { queryBackend } from "./query-backend.js";
import { type ReadAnswer, readDeclaration } from "./read-declaration.js";
import type { RunContext } from "./run-context.js";
import { startIteration } from "./start-iteration.js";
import { takeBaseline } from "./take-baseline.js";
import { failed, isTerminal, type Terminal, UNDECIDED_END } from "./terminal-state.js";
import type { Verdict } from "./verdict.js";

/**
 * The loop of docs/loop.md. It leaves only through a terminal state.
 *
 * An iteration is one backend query for the work: the step prompt or a
 * retry prompt (condition, format or undecidable retries all count). Repeats
 * of the same query after a rate limit, overload, timeout or expired session
 * do not count, nor does the closure review query, which belongs to the
 * iteration whose declaration it reviews.
 */
export async function runLoop(run: RunContext, finishOnly = false): Promise<Terminal> {
  try {
    const end = await iterate(run, finishOnly);
    // The baseline's checks still under way are not needed by a run that ended: they stop. One
    // found unable to run still ends the run (docs/integrity.md#cannot-run).
    return (await stopUnneededBaseline(run)) ?? end;
  } finally {
    await run.baselineChecks?.ended.catch(() => undefined); // nothing of the run outlives its loop
    await iterationDiffsKept(run);
    // However the loop ended (a query cut off, an abort, a crash), closer's git after it
    // (commit, merge, push) runs with the git state the user had (docs/integrity.md#git-state).
    await restoreGitStateBeforeFinish(run, run.state.iteration);
  }
}

async function iterate(run: RunContext, finishOnly: boolean): Promise<Terminal> {
  // The untouched tree: what the first query needs, before it; the checks, in a clean room beside it
  const unrunnable = await takeBaseline(run); // docs/integrity.md#baseline
  if (unrunnable) return unrunnable; // a check that cannot run, found before any query
  if (finishOnly) return finishChecks(run); // a completed run's checks again, and no prompt
  const resumed = await resumeChecks(run); // a run stopped during its checks runs them again
  if (resumed) return resumed;
  for (;;) {
    const limit = await checkLimits(run); // abort, budgets, iteration cap (rule 6)
    if (limit) return limit;

    const started = await startIteration(run); // pending retry prompt ?? step prompt (rules 2, 3)
    await run.plugins.call("beforeQuery", queryView(run, started)); // docs/plugins.md#hooks
    const queried = await queryBackend(run, started.query); // waits out rate limits (rules 4, 5)
    if (queried.terminal) return queried.terminal;
    await run.plugins.call("afterResponse", responseView(started, queried.response));
    // the guards, the declaration (the completion prompt's, when the step has one), the summary
    const answer = await readDeclaration(run, started, queried.response);
    if (isTerminal(answer)) return answer;

    const verdict = await checkAnswer(run, answer); // rule 1: only `complete` starts the checks
    if (isTerminal(verdict)) return verdict;
    const end = await endIteration(run, answer, verdict); // completed, next step, retry or an end
    if (end) return end;
  }
}

/**
 * The checks of a `complete` declaration, in order (docs/completion.md#checks); any other
 * answer, and one a guard failed after, is judged as read (rule 1).
 */
async function checkAnswer(run: RunContext, answer: ReadAnswer): Promise<Verdict | Terminal> {
  const { decision, guarded } = answer;
  const declared = decision.decision;
  if (guarded !== undefined) {
    return { kind: "refuted", failure: guarded, declared: declared === "complete", outcomes: [] };
  }
  if (declared !== "complete") return { kind: declared, decision };
  const declaration = await beforeChecks(run, answer); // closer's step first (autoCommit)
  const misformatted = await checkFormat(run, answer); // format retries
  if (misformatted) return misformatted;
  return checkDeclaration(run, answer, declaration); // validators, review, external conditions
}

/**
 * A run stopped during its checks runs those of its declaration again, before any prompt is
 * sent (docs/loop.md#resume-into-checks). Returns the end of the run, or undefined when the
 * loop goes on (or there was nothing to check again).
 */
async function resumeChecks(run: RunContext): Promise<Terminal | undefined> {
  const answer = answerInChecks(run);
  if (answer === undefined) return undefined;
  const declaration = await beforeChecks(run, answer);
  const verdict = await checkDeclaration(run, answer, declaration);
  return isTerminal(verdict) ? verdict : endIteration(run, answer, verdict);
}

/**
 * A completed run whose side effects did not all finish runs the checks of its verified
 * declaration once more, and ends `completed` only when they verify the commit run.json names
 * (docs/integrity.md#resume); otherwise it ends refused, and no prompt is ever sent.
 */
async function finishChecks(run: RunContext): Promise<Terminal> {
  const recorded = run.state.completion?.commit;
  const { answer, declaration } = answerToFinish(run);
  const verdict = await checkDeclaration(run, answer, declaration);
  if (isTerminal(verdict)) return verdict;
  if (verdict.kind === "verified" && recorded !== undefined && verdict.commit === recorded) {
    return (await endIteration(run, answer, verdict)) ?? UNDECIDED_END;
  }
  const why =
    verdict.kind === "refuted"
      ? verdict.failure.detail
      : `the checks ran on ${verdict.commit ?? "no commit"}, not on the verified commit ${recorded}`;
  return failed(
    "usage_error",
    `run ${run.runId} was not finished: its checks do not hold now (${why}); start a new run`,
  );
}
