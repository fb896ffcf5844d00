import type { C3lWords } from "../ports/prompts.js";
import type {
  CompletionStepDefinition,
  PatternDefinition,
  StepDefinition,
} from "../ports/registry.js";

/** Words of a step's own prompt: `{c1}/{c2}/{c3}/f_{edition}[_{adaptation}].md`. */
export function stepWords(c1: string, step: StepDefinition): C3lWords {
  return {
    c1,
    c2: step.c2,
    c3: step.c3,
    edition: step.edition,
    ...(step.adaptation === undefined ? {} : { adaptation: step.adaptation }),
  };
}

/**
 * Words of the retry prompt for a failure pattern of a completion step (docs/retry.md#retry-prompt): c2/c3 from
 * the completion step, edition/adaptation from the pattern, or `failed` + the pattern's name for
 * a pattern the registry does not declare (the built-in ones such as `format-error`).
 */
export function retryWords(
  c1: string,
  completionStep: CompletionStepDefinition,
  patternName: string,
  pattern: PatternDefinition | undefined,
): C3lWords {
  return {
    c1,
    c2: completionStep.c2,
    c3: completionStep.c3,
    edition: pattern?.edition ?? "failed",
    adaptation: pattern?.adaptation ?? patternName,
  };
}
