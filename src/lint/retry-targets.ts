import type { ResolvedAgent } from "../ports/agent.js";
import { BUILTIN_PATTERN_NAMES } from "../ports/check-failure.js";
import type { CompletionStepDefinition, ValidatorDefinition } from "../ports/registry.js";
import { builtinPatternsFor } from "../retry/builtin-patterns.js";

/** What one retry pattern of a completion step supplies, and who supplies it. */
export interface RetryTarget {
  readonly pattern: string;
  readonly supplied: readonly string[];
  /** Validators mapped to the pattern; empty for a built-in pattern. */
  readonly validators: readonly { readonly name: string; readonly params: readonly string[] }[];
  /** A fall back to the built-in generic text deserves a warning. */
  readonly warnOnBuiltin: boolean;
}

/**
 * The validators whose failure a completion step can report: its own conditions, and the
 * validators no completion step uses yet (they are there to be added, and so are their prompts).
 */
function reachableValidators(
  agent: ResolvedAgent,
  completionStep: CompletionStepDefinition,
): ValidatorDefinition[] {
  const { validators, completionSteps } = agent.registry;
  const used = new Set(
    Object.values(completionSteps).flatMap((step) =>
      step.completionConditions.map((condition) => condition.validator),
    ),
  );
  return [
    ...completionStep.completionConditions.flatMap((condition) => {
      const validator = validators[condition.validator];
      return validator === undefined ? [] : [validator];
    }),
    ...Object.values(validators).filter((validator) => !used.has(validator.name)),
  ];
}

/** Params a validator fills; a custom module returns its own at run time, taken at its pattern's word. */
function paramsSuppliedBy(agent: ResolvedAgent, validator: ValidatorDefinition): string[] {
  if (validator.type !== "custom") return Object.keys(validator.extractParams);
  return [...(agent.registry.completionPatterns[validator.failurePattern]?.params ?? [])];
}

/** The retry prompts a completion step can send: one per pattern it can reach, and the built-in ones. */
export function retryTargets(
  agent: ResolvedAgent,
  completionStep: CompletionStepDefinition,
): RetryTarget[] {
  const validators = reachableValidators(agent, completionStep);
  const patterns = [...new Set(validators.map((validator) => validator.failurePattern))];
  const targets: RetryTarget[] = patterns.map((pattern) => {
    const mapped = validators
      .filter((validator) => validator.failurePattern === pattern)
      .map((validator) => ({ name: validator.name, params: paramsSuppliedBy(agent, validator) }));
    const supplied = mapped.reduce<readonly string[]>(
      (common, validator) => common.filter((param) => validator.params.includes(param)),
      mapped[0]?.params ?? [],
    );
    return { pattern, supplied, validators: mapped, warnOnBuiltin: true };
  });
  for (const { name: pattern, params: supplied } of builtinPatternsFor(completionStep)) {
    const warnOnBuiltin = pattern === BUILTIN_PATTERN_NAMES.formatError;
    targets.push({ pattern, supplied, validators: [], warnOnBuiltin });
  }
  return targets;
}
