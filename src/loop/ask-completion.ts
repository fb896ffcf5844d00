import { CloserError } from "../errors.js";
import type { BackendResponse } from "../ports/backend.js";
import { COMPLETION_PROMPT_REASON } from "../ports/receipt-reason.js";
import type { CompletionStepDefinition } from "../ports/registry.js";
import { queryBackend } from "./query-backend.js";
import { type RunContext, recordPrompt } from "./run-context.js";
import { type Turn, variablesFor } from "./start-iteration.js";
import type { Terminal } from "./terminal-state.js";

const LABEL = "completion";

/** The edition a completion prompt falls back to. */
const DEFAULT_EDITION = "default";

type CompletionPromptWords = NonNullable<CompletionStepDefinition["prompt"]>;

export type CompletionAnswer =
  | { readonly terminal: Terminal }
  | { readonly turn: Turn; readonly response: BackendResponse; readonly terminal?: undefined };

/**
 * The completion prompt (docs/completion.md#completion-prompt): a model that
 * declared completion against a completion step with a `prompt` is sent that
 * prompt, in its own session, and answers in the completion step's schema;
 * that answer is the declaration the checks read. Returns the turn that asked
 * it (its prompt, schema and the decision file as it was before) and the answer.
 */
export async function askCompletion(
  run: RunContext,
  turn: Turn,
  completionStep: CompletionStepDefinition,
  words: CompletionPromptWords,
): Promise<CompletionAnswer> {
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
  const asked: Turn = {
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
  const answer = await queryBackend(run, asked.query);
  if (answer.terminal) return { terminal: answer.terminal };
  return { turn: asked, response: answer.response };
}

/** `f_<edition>.md` of the prompt's folder, else its `f_default.md`. */
async function renderCompletionPrompt(
  run: RunContext,
  turn: Turn,
  prompt: CompletionPromptWords,
): Promise<{ readonly text: string; readonly templatePath: string }> {
  const render = (edition: string) =>
    run.ports.renderPrompt({
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
