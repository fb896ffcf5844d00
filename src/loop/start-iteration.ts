import { makeCheckId } from "../completion/decide-completion.js";
import { stepModel } from "../definition/step-model.js";
import { CloserError } from "../errors.js";
import type { FileSnapshot } from "../ports/files.js";
import { reasonOfPrompt } from "../ports/receipt-reason.js";
import type { CompletionStepDefinition, StepDefinition } from "../ports/registry.js";
import type { IterationSummary } from "../ports/run-state.js";
import { makeVariables } from "../prompts/variables.js";
import { keepIterationStart } from "./keep-iteration-diff.js";
import type { Query } from "./query.js";
import { emit, type RunContext, recordPrompt, updateState } from "./run-context.js";

/** One iteration under way: its number, check id, step and the query it sends. */
export interface Turn {
  readonly iteration: number;
  /** Fresh for every iteration: the model may declare completion in it (docs/completion.md#check-id). */
  readonly checkId: string;
  readonly step: StepDefinition;
  /** The completion step the step declares completion against, when it has one. */
  readonly completionStep?: CompletionStepDefinition;
  readonly query: Query;
  /** The decision file as it was before the query, to tell a fresh file from an old one. */
  readonly decisionBefore?: FileSnapshot;
}

/**
 * Starts the next iteration: the pending retry prompt when a check failed
 * last time (docs/loop.md#rule-2), else the step's prompt rendered with the
 * previous summary (rule 3). The prompt is kept in the record before it is sent.
 */
export async function startIteration(run: RunContext): Promise<Turn> {
  const iteration = run.state.iteration + 1;
  await keepIterationStart(run); // the tree its diff starts from (docs/record.md#diffs)
  const decisionBefore = run.ports.readFile(run.decisionPath);
  decisionBefore.catch(() => undefined); // awaited below, once the prompt is ready
  const pending = run.state.pendingPrompt;
  const checkId = pending?.checkId ?? makeCheckId(run.ports.clock.randomId);
  const step = findStep(run, run.state.stepId);
  emit(run, { type: "iteration-start", iteration, step: step.id });
  const prompt = pending ?? (await renderStepPrompt(run, step, iteration, checkId));
  recordPrompt(run, { iteration, step: step.id, prompt, kind: pending?.kind ?? "step" });
  const schema = step.outputSchemaRef && (await run.ports.resolveSchema(step.outputSchemaRef));
  const model = stepModel(run.agent, step);
  const completionStep = completionStepOf(run, step);
  // Counted from here: the query is about to be sent.
  updateState(run, { iteration });
  return {
    iteration,
    checkId,
    step,
    ...(completionStep === undefined ? {} : { completionStep }),
    query: {
      iteration,
      prompt: prompt.text,
      checkId,
      reason: reasonOfPrompt({
        kind: pending?.kind ?? "step",
        iteration,
        ...(pending === undefined ? {} : { pattern: pending.pattern }),
      }),
      ...(schema ? { schema } : {}),
      ...(model === undefined ? {} : { model }),
    },
    decisionBefore: await decisionBefore,
  };
}

/** The step's own prompt, rendered with the previous summary (docs/loop.md#rule-3). */
function renderStepPrompt(
  run: RunContext,
  step: StepDefinition,
  iteration: number,
  checkId: string,
): Promise<{ readonly text: string; readonly templatePath: string }> {
  return run.ports.promptResolver({
    agentDir: run.agent.dir,
    words: {
      c1: run.agent.registry.c1,
      c2: step.c2,
      c3: step.c3,
      edition: step.edition,
      ...(step.adaptation === undefined ? {} : { adaptation: step.adaptation }),
    },
    variables: variablesFor(run, iteration, checkId, run.state.previousSummary),
  });
}

function completionStepOf(
  run: RunContext,
  step: StepDefinition,
): CompletionStepDefinition | undefined {
  return step.completionStep === undefined
    ? undefined
    : run.agent.registry.completionSteps[step.completionStep];
}

/** The variables every template of an iteration is rendered from (one place: makeVariables). */
export function variablesFor(
  run: RunContext,
  iteration: number,
  checkId: string,
  previousSummary: IterationSummary | undefined,
): Record<string, unknown> {
  return makeVariables({
    parameters: run.state.args,
    parameterDefinitions: run.agent.parameters,
    iteration,
    maxIterations: run.agent.runner.maxIterations,
    runId: run.runId,
    checkId,
    ...(previousSummary === undefined ? {} : { previousSummary }),
    task: run.state.task,
    dirtyAtStart: run.state.baseline?.dirtyFiles ?? [],
  });
}

export function findStep(run: RunContext, stepId: string): StepDefinition {
  const step = run.agent.registry.steps[stepId];
  if (step !== undefined) return step;
  throw new CloserError(
    "config_error",
    `the run is at step "${stepId}", which the registry does not define`,
    {
      file: run.agent.files.registry,
      jsonPath: `steps["${stepId}"]`,
      expected: `one of ${Object.keys(run.agent.registry.steps).join(", ")}`,
      found: stepId,
      fix: "define the step in steps_registry.json, or correct the entry step or a step's `next`",
    },
  );
}
