import { CloserError } from "../errors.js";
import { COMPLETION_PROMPT_REASON } from "../ports/receipt-reason.js";
import type { CompletionStepDefinition } from "../ports/registry.js";
import { type RunContext, recordPrompt } from "./run-context.js";
import { type Turn, variablesFor } from "./start-iteration.js";

const LABEL = "completion";

/** The edition a completion prompt falls back to. */
const DEFAULT_EDITION = "default";

type CompletionPromptWords = NonNullable<CompletionStepDefinition["prompt"]>;

/**
 * The completion prompt (docs/completion.md#completion-prompt): a model that
 * declared completion against a completion step with a `prompt` is sent that
 * prompt, in its own session, and answers in the completion step's schema;
 * that answer is the declaration the checks read. Records the prompt and returns the turn
 * that asks it: its query (prompt, schema) and the decision file as it was before.
 */
export async function askCompletion(
  run: RunContext,
  turn: Turn,
  completionStep: CompletionStepDefinition,
  words: CompletionPromptWords,
): Promise<Turn> {
  const prompt = await renderCompletionPrompt(run, turn, words);
  recordPrompt(run, {
    iteration: turn.iteration,
    step: turn.step.id,
    prompt,
    kind: "completion",
    label: LABEL,
  });
  const ref = completionStep.outputSchemaRef;
  const schema = ref === undefined ? turn.query.schema : await run.ports.resolveSchema(ref);
  return {
    ...turn,
    query: {
      ...turn.query,
      prompt: prompt.text,
      reason: COMPLETION_PROMPT_REASON,
      label: LABEL,
      ...(schema === undefined ? {} : { schema }),
    },
    decisionBefore: await run.ports.readFile(run.decisionPath),
  };
}

/** `f_<edition>.md` of the prompt's folder, else its `f_default.md`. */
async function renderCompletionPrompt(
  run: RunContext,
  turn: Turn,
  prompt: CompletionPromptWords,
): Promise<{ readonly text: string; readonly templatePath: string }> {
  const render = (edition: string) =>
    run.ports.promptResolver({
      agentDir: run.agent.dir,
      words: { c1: run.agent.registry.c1, c2: prompt.c2, c3: prompt.c3, edition },
      variables: variablesFor(run, turn.iteration, turn.checkId, run.state.previousSummary),
    });
  if (prompt.edition === DEFAULT_EDITION) return render(DEFAULT_EDITION);
  return render(prompt.edition).catch((error: unknown) => {
    if (error instanceof CloserError && error.code === "not_found") return render(DEFAULT_EDITION);
    throw error;
  });
}
