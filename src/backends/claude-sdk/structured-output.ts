/**
 * Checks the SDK's `structured_output` against the step schema once more on
 * closer's side, so only output that really fits reaches the loop.
 */
import { createRequire } from "node:module";
import type { Ajv, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type ajvFormats from "ajv-formats";
import type { JsonSchema } from "../../ports/runner-config.js";

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

interface Engines {
  readonly draft07: Ajv;
  readonly draft2020: Ajv2020;
}

/**
 * ajv is loaded when a structured output is first checked, not when the
 * backends are loaded: a run of another backend never needs it
 * (docs/cli.md#start-up).
 */
function loadEngines(): Engines {
  const require = createRequire(import.meta.url);
  const { Ajv: Draft07 }: { Ajv: typeof Ajv } = require("ajv");
  const { Ajv2020: Draft2020 }: { Ajv2020: typeof Ajv2020 } = require("ajv/dist/2020.js");
  const formats: typeof ajvFormats = require("ajv-formats");
  const options = { allErrors: true, strict: false } as const;
  const engines = { draft07: new Draft07(options), draft2020: new Draft2020(options) };
  formats.default(engines.draft07);
  formats.default(engines.draft2020);
  return engines;
}

export function makeStructuredOutputValidator(): StructuredOutputValidator {
  const compiled = new WeakMap<JsonSchema, ValidateFunction>();
  let engines: Engines | undefined;

  const compile = (schema: JsonSchema): ValidateFunction => {
    const known = compiled.get(schema);
    if (known) return known;
    engines ??= loadEngines();
    const engine = isDraft2020(schema) ? engines.draft2020 : engines.draft07;
    const validate = engine.compile(schema);
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
