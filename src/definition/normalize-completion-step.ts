import type { CompletionStepDefinition } from "../ports/registry.js";
import { normalizeClosureReview } from "./normalize-closure-review.js";
import { DEFAULT_ON_FAILURE, type RegistryCompletionStep } from "./registry-file-schema.js";

/** The retry folder's c2 when a step names only its own `prompt` (docs/definition.md#seed-spellings). */
const SEED_RETRY_C2 = "retry";

/** Where a problem of the registry goes: its JSON path, what is wrong, the fix. */
export type Report = (jsonPath: PropertyKey[], message: string, fix: string) => void;

/** What a step is read against: the registry's c1, and where problems go. */
export interface StepContext {
  readonly c1: string;
  readonly report: Report;
}

export function assertStepId(
  id: string,
  stepId: string | undefined,
  at: PropertyKey[],
  report: Report,
) {
  if (stepId !== undefined && stepId !== id) {
    report(
      [...at, "stepId"],
      `stepId "${stepId}" differs from the step's key "${id}"`,
      `set "stepId" to "${id}" or remove it`,
    );
  }
}

/**
 * A completion step in either spelling (docs/definition.md#completion-step-spellings,
 * docs/definition.md#seed-spellings), every default applied.
 */
export function normalizeCompletionStep(
  id: string,
  entry: RegistryCompletionStep,
  at: PropertyKey[],
  { c1, report }: StepContext,
): CompletionStepDefinition {
  assertStepId(id, entry.stepId, at, report);
  if (entry.prompt?.c1 !== undefined && entry.prompt.c1 !== c1) {
    report(
      [...at, "prompt", "c1"],
      `prompt.c1 "${entry.prompt.c1}" differs from the registry's c1 "${c1}"`,
      `remove prompt.c1 or set it to "${c1}"`,
    );
  }
  // The seed's `prompt` is the step's own prompt; its retry prompts are then in retry/<prompt.c3>.
  const c2 = entry.c2 ?? (entry.prompt ? SEED_RETRY_C2 : undefined);
  const c3 = entry.c3 ?? entry.prompt?.c3;
  if (c2 === undefined || c3 === undefined) {
    report(
      at,
      `completion step "${id}" names no ${c2 === undefined ? "c2" : "c3"}`,
      'add "c2" and "c3", the folder of its retry prompts (e.g. "c2": "retry", "c3": "issue")',
    );
  }
  const responseFormat = entry.responseFormat ?? entry.check?.responseFormat;
  return {
    id,
    name: entry.name ?? id,
    c2: c2 ?? "",
    c3: c3 ?? "",
    ...(entry.outputSchemaRef === undefined
      ? {}
      : { outputSchemaRef: { ...entry.outputSchemaRef } }),
    ...(responseFormat === undefined ? {} : { responseFormat: copyResponseFormat(responseFormat) }),
    ...(entry.prompt === undefined
      ? {}
      : {
          prompt: {
            c2: entry.prompt.c2,
            c3: entry.prompt.c3,
            edition: entry.prompt.edition ?? "default",
          },
        }),
    completionConditions: entry.completionConditions.map(copyCondition),
    ...(entry.concurrency === undefined ? {} : { concurrency: entry.concurrency }),
    ...(entry.closureReview === undefined
      ? {}
      : { closureReview: normalizeClosureReview(entry.closureReview) }),
    onFailure: entry.onFailure
      ? { action: entry.onFailure.action, maxAttempts: entry.onFailure.maxAttempts }
      : entry.onFail
        ? { action: entry.onFail.retry ? "retry" : "abort", maxAttempts: entry.onFail.maxAttempts }
        : DEFAULT_ON_FAILURE,
    maxFormatRetries: entry.maxFormatRetries ?? entry.check?.onFail?.maxRetries ?? 3,
  };
}

function copyResponseFormat(
  format: NonNullable<RegistryCompletionStep["responseFormat"]>,
): NonNullable<CompletionStepDefinition["responseFormat"]> {
  if (format.type === "json") return { type: "json", requiredFields: [...format.requiredFields] };
  return { ...format };
}

function copyCondition(
  condition: RegistryCompletionStep["completionConditions"][number],
): CompletionStepDefinition["completionConditions"][number] {
  return condition.params === undefined
    ? { validator: condition.validator }
    : { validator: condition.validator, params: structuredClone(condition.params) };
}
