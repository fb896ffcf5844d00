import { makeCheckId } from "../completion/decide-completion.js";
import { summarizeIteration } from "../completion/summarize-iteration.js";
import { stepModel } from "../definition/step-model.js";
import type { BackendResponse } from "../ports/backend.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { Declaration } from "../ports/declaration.js";
import { reasonOfPrompt } from "../ports/receipt-reason.js";
import type { CheckingDeclaration } from "../ports/run-state.js";
import { awaitBaseline } from "./baseline-checks.js";
import {
  type CheckedCommit,
  checksCwd,
  holdCheckedCommit,
  placeChecks,
  readCheckedCommit,
} from "./checked-commit.js";
import { checkedView, checksView } from "./plugin-views.js";
import type { Answer } from "./read-declaration.js";
import { emit, type RunContext, saveState, updateState } from "./run-context.js";
import { findStep, type Turn } from "./start-iteration.js";
import { abortedWhen, isTerminal, type Terminal } from "./terminal-state.js";
import type { CheckedVerdict } from "./verdict.js";
import { verifyCompletion } from "./verify-completion.js";

/** The start of the model's text a resumed run's summary needs (it keeps 500 characters). */
const KEPT_TEXT_CHARS = 2_000;

/**
 * Checks a declaration (validators, review, external conditions) and gives the verdict, about
 * the commit and tree the checks started on (docs/integrity.md#one-commit). run.json says the
 * checks are under way (`checking`) until they give one, so a run stopped during them is
 * resumed into them (docs/loop.md#resume-into-checks).
 */
export async function checkDeclaration(
  run: RunContext,
  answer: Answer,
  declaration: Declaration,
): Promise<CheckedVerdict | Terminal> {
  const { turn, response } = answer;
  // Compared with the baseline: its checks, beside the first query, end first.
  const unrunnable = await awaitBaseline(run);
  if (unrunnable) return unrunnable;
  const checked = await readCheckedCommit(run); // after beforeChecks: its commit is checked too
  markChecking(run, { turn, response, checked });
  await run.plugins.call("beforeChecks", checksView(turn, declaration)); // docs/plugins.md#hooks
  const place = await placeChecks(run, checked);
  // A run stopped during its checks has no verdict: resumed, it takes them again (docs/loop.md#resume-into-checks).
  if (run.signal.aborted) return abortedWhen(run, "during the checks");
  const found =
    "unreadable" in place
      ? refutedBy(place.unreadable)
      : await verifyCompletion(run, turn, {
          declaration,
          cwd: checksCwd(place),
          ...("room" in place && checked !== undefined
            ? { room: { commit: checked.commit, tree: place.room.tree } }
            : {}),
        });
  if (isTerminal(found)) return found;
  if (run.signal.aborted) return abortedWhen(run, "during the checks");
  const held = await holdCheckedCommit(run, turn, { verdict: found, checked, place });
  const verdict = "room" in place ? { ...held, tree: place.room.tree } : held;
  updateState(run, { checking: undefined });
  await run.plugins.call("afterChecks", checkedView(turn, declaration, verdict));
  return verdict;
}

function refutedBy(failure: CheckFailure): CheckedVerdict {
  return { kind: "refuted", failure, declared: true, outcomes: [] };
}

/**
 * The answer a run was checking when it stopped (Ctrl-C, a lost terminal, a crash), with a
 * warning that its checks run again before any prompt is sent (docs/loop.md#resume-into-checks);
 * undefined when there is none.
 */
export function answerInChecks(run: RunContext): Answer | undefined {
  const checking = run.state.checking;
  if (checking === undefined || run.signal.aborted) return undefined;
  const turn = turnOf(run, checking);
  const response = responseOf(checking);
  emit(run, {
    type: "warning",
    iteration: checking.iteration,
    message: `the run stopped during the checks of iteration ${checking.iteration}: running them again`,
  });
  return { turn, response, summary: summarizeIteration(turn.iteration, response) };
}

/**
 * The verified declaration of a completed run whose side effects did not all finish, to be
 * checked again (docs/integrity.md#resume): as run.json kept it, on a new check id, without the
 * closure review, which already judged this commit and would need the model.
 */
export function answerToFinish(run: RunContext): { answer: Answer; declaration: Declaration } {
  const { iteration, stepId, completion, previousSummary } = run.state;
  const summary = previousSummary ?? {
    iteration,
    summary: completion?.summary ?? "",
    toolsUsed: [],
    errors: [],
  };
  const checkId = makeCheckId(run.ports.clock.randomId);
  const kept = { iteration, checkId, stepId, response: { text: "", toolsUsed: summary.toolsUsed } };
  emit(run, {
    type: "warning",
    iteration,
    message: `the run completed but its side effects did not all finish: its checks run again on commit ${completion?.commit ?? "?"} first`,
  });
  const declaration: Declaration = {
    iteration,
    checkId,
    ...(summary.status === undefined ? {} : { status: summary.status }),
    ...(summary.summary === undefined ? {} : { summary: summary.summary }),
    iterationSummary: summary,
  };
  const turn = withoutClosureReview(turnOf(run, kept));
  return { answer: { turn, response: responseOf(kept), summary }, declaration };
}

function withoutClosureReview(turn: Turn): Turn {
  if (turn.completionStep === undefined) return turn;
  const { closureReview: _review, ...completionStep } = turn.completionStep;
  return { ...turn, completionStep };
}

function markChecking(
  run: RunContext,
  at: { turn: Turn; response: BackendResponse; checked: CheckedCommit | undefined },
): void {
  const { turn, response, checked } = at;
  const checking: CheckingDeclaration = {
    iteration: turn.iteration,
    checkId: turn.checkId,
    stepId: turn.step.id,
    response: {
      ...(response.structuredOutput === undefined
        ? {}
        : { structuredOutput: response.structuredOutput }),
      text: response.text.slice(0, KEPT_TEXT_CHARS),
      toolsUsed: response.toolsUsed,
    },
    ...checked,
  };
  updateState(run, { checking });
  saveState(run);
  emit(run, { type: "checks-start", iteration: turn.iteration, checkId: turn.checkId, ...checked });
}

function turnOf(run: RunContext, checking: CheckingDeclaration): Turn {
  const step = findStep(run, checking.stepId);
  const completionStep =
    step.completionStep === undefined
      ? undefined
      : run.agent.registry.completionSteps[step.completionStep];
  const model = stepModel(run.agent, step);
  return {
    iteration: checking.iteration,
    checkId: checking.checkId,
    step,
    ...(completionStep === undefined ? {} : { completionStep }),
    query: {
      iteration: checking.iteration,
      prompt: "",
      checkId: checking.checkId,
      reason: reasonOfPrompt({ kind: "step", iteration: checking.iteration }),
      ...(model === undefined ? {} : { model }),
    },
  };
}

function responseOf(checking: CheckingDeclaration): BackendResponse {
  const { structuredOutput, text, toolsUsed } = checking.response;
  return {
    ...(structuredOutput === undefined ? {} : { structuredOutput }),
    text,
    toolsUsed,
    costUsd: 0,
    durationMs: 0,
    transcript: [],
  };
}
