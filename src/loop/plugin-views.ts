import type { BackendResponse } from "../ports/backend.js";
import type { Declaration } from "../ports/declaration.js";
import type { CheckedView, ChecksView, QueryView, ResponseView } from "../ports/plugin.js";
import type { RunContext } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import type { CheckedVerdict } from "./verdict.js";

/** What the plugins' hooks are shown at each seam of the loop (docs/plugins.md#hooks). */

export function queryView(run: RunContext, turn: Turn): QueryView {
  const pending = run.state.pendingPrompt;
  return {
    iteration: turn.iteration,
    step: turn.step.id,
    checkId: turn.checkId,
    kind: pending?.kind ?? "step",
    ...(pending === undefined ? {} : { pattern: pending.pattern }),
    prompt: turn.query.prompt,
  };
}

export function responseView(turn: Turn, response: BackendResponse): ResponseView {
  return {
    iteration: turn.iteration,
    step: turn.step.id,
    text: response.text,
    ...(response.structuredOutput === undefined
      ? {}
      : { structuredOutput: response.structuredOutput }),
    costUsd: response.costUsd,
    durationMs: response.durationMs,
  };
}

export function checksView(turn: Turn, declaration: Declaration): ChecksView {
  const conditions = turn.completionStep?.completionConditions ?? [];
  return {
    iteration: turn.iteration,
    step: turn.step.id,
    declaration,
    validators: conditions.map((condition) => condition.validator),
  };
}

export function checkedView(
  turn: Turn,
  declaration: Declaration,
  verdict: CheckedVerdict,
): CheckedView {
  const failure = verdict.kind === "refuted" ? verdict.failure : undefined;
  return {
    ...checksView(turn, declaration),
    complete: verdict.kind === "verified",
    outcomes: verdict.outcomes,
    ...(failure === undefined
      ? {}
      : {
          failure: {
            name: failure.name,
            pattern: failure.pattern,
            detail: failure.detail,
            params: failure.params,
          },
        }),
  };
}
