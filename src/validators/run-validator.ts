import type { ValidatorDefinition } from "../definition/types.js";
import type { CheckContext, ValidatorOutcome } from "../ports.js";
import { runCommandValidator } from "./run-command-validator.js";
import { runCustomValidator } from "./run-custom-validator.js";
import { runFileValidator } from "./run-file-validator.js";

/**
 * Runs one validator of docs/completion.md#validator-types and says what it found. A failing check is
 * a value (`valid: false` with its pattern and extracted params); a check the
 * definition makes impossible (exit 126/127, a path outside the working tree,
 * a broken module) carries `configError`. Never throws for either.
 */
export function runValidator(
  definition: ValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  switch (definition.type) {
    case "command":
      return runCommandValidator(definition, context);
    case "file":
      return runFileValidator(definition, context);
    case "custom":
      return runCustomValidator(definition, context);
  }
}
