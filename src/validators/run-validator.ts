import type { ValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import { applyConditionParams } from "./condition-params.js";
import { runWithReruns } from "./rerun-flaky.js";
import { runCommandValidator } from "./run-command-validator.js";
import { runCustomValidator } from "./run-custom-validator.js";
import { runFileValidator } from "./run-file-validator.js";
import { makeConfigErrorOutcome } from "./validator-outcome.js";

/**
 * Runs one validator of docs/completion.md#validator-types and says what it found. A failing check is
 * a value (`valid: false` with its pattern and extracted params); a check the
 * definition makes impossible (exit 126/127, a path outside the working tree,
 * a broken module) carries `configError`. Never throws for either. A failure
 * is run again up to `reruns` times (docs/completion.md#flaky-checks).
 */
export async function runValidator(
  declared: ValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  const applied = applyConditionParams(declared, context.conditionParams);
  if (!applied.ok) return makeConfigErrorOutcome(declared, applied.error, 0);
  const { definition } = applied;
  // Each runner takes its own type's definition; the map's type pairs them.
  const run = RUNNERS[definition.type] as ValidatorRunnerOf<ValidatorDefinition["type"]>;
  return runWithReruns(definition, context, () => run(definition, context));
}

type ValidatorRunnerOf<Type extends ValidatorDefinition["type"]> = (
  definition: Extract<ValidatorDefinition, { type: Type }>,
  context: CheckContext,
) => Promise<ValidatorOutcome>;

/** The runner of every validator type: a type without one is a compile error. */
const RUNNERS: { readonly [Type in ValidatorDefinition["type"]]: ValidatorRunnerOf<Type> } = {
  command: runCommandValidator,
  file: runFileValidator,
  custom: runCustomValidator,
};

/** The outcome of a check the registry does not define: the definition's fault, not the work's. */
export function unknownValidatorOutcome(name: string): ValidatorOutcome {
  return {
    validator: name,
    valid: false,
    params: {},
    durationMs: 0,
    configError: `the registry defines no validator "${name}"`,
  };
}
