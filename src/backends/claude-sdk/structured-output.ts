/**
 * Checks the SDK's `structured_output` against the step schema once more on
 * closer's side, so only output that really fits reaches the loop.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "../../definition/types.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type StructuredOutputCheck =
  | { readonly valid: true }
  | { readonly valid: false; readonly errors: readonly string[] };

/** Validates values against schemas, compiling each schema object once. */
export type StructuredOutputValidator = (
  schema: JsonSchema,
  value: unknown,
) => StructuredOutputCheck;

function isDraft2020(schema: JsonSchema): boolean {
  return typeof schema.$schema === "string" && schema.$schema.includes("2020-12");
}

export function makeStructuredOutputValidator(): StructuredOutputValidator {
  const compiled = new WeakMap<JsonSchema, ValidateFunction>();
  const options = { allErrors: true, strict: false } as const;
  const draft07 = new Ajv(options);
  const draft2020 = new Ajv2020(options);
  addFormats(draft07);
  addFormats(draft2020);

  const compile = (schema: JsonSchema): ValidateFunction => {
    const known = compiled.get(schema);
    if (known) return known;
    const validate = (isDraft2020(schema) ? draft2020 : draft07).compile(schema);
    compiled.set(schema, validate);
    return validate;
  };

  return (schema, value) => {
    let validate: ValidateFunction;
    try {
      validate = compile(schema);
    } catch (error) {
      return { valid: false, errors: [`the schema does not compile: ${(error as Error).message}`] };
    }
    if (validate(value)) return { valid: true };
    const errors = (validate.errors ?? []).map(
      (error) => `${error.instancePath || "(root)"} ${error.message ?? "is invalid"}`,
    );
    return { valid: false, errors };
  };
}
