import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type ajvFormats from "ajv-formats";
import { CloserError } from "../errors.js";
import type { SchemaCheck, SchemaChecker, SchemaProblem } from "../ports/loop-ports.js";
import type { JsonSchema } from "../ports/runner-config.js";

const PROBLEMS_IN_MESSAGE = 3;

type Draft = "draft-07" | "2019-09" | "2020-12";
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/**
 * Checks values against JSON Schemas with ajv. Compiled validators are cached
 * per schema object, so keep one instance per run and pass it around.
 */
export class SchemaValidators implements SchemaChecker {
  readonly #compiled = new Map<JsonSchema, ValidateFunction>();
  readonly #engines = new Map<Draft, AnyAjv>();

  check(value: unknown, schema: JsonSchema): SchemaCheck {
    const validate = this.#compile(schema);
    if (validate(value)) return { valid: true, problems: [] };
    const problems = (validate.errors ?? []).map(toProblem);
    return { valid: false, problems, error: describeProblems(problems) };
  }

  #compile(schema: JsonSchema): ValidateFunction {
    const cached = this.#compiled.get(schema);
    if (cached !== undefined) return cached;
    const { $schema, $id: _id, ...body } = schema;
    let validate: ValidateFunction;
    try {
      validate = this.#engine(draftOf($schema)).compile(body);
    } catch (error) {
      throw new CloserError("validation_error", "an output schema is not a valid JSON Schema", {
        expected: "a JSON Schema ajv can compile",
        found: (error as Error).message,
        fix: "correct the schema file under the agent's schemas/ folder",
        cause: error,
      });
    }
    this.#compiled.set(schema, validate);
    return validate;
  }

  #engine(draft: Draft): AnyAjv {
    const existing = this.#engines.get(draft);
    if (existing !== undefined) return existing;
    const engine = makeEngine(draft);
    this.#engines.set(draft, engine);
    return engine;
  }
}

/**
 * ajv is loaded when a run first checks a schema, not when closer starts: it
 * adds megabytes to the process, and many runs never check a schema.
 */
function makeEngine(draft: Draft): AnyAjv {
  const require = createRequire(import.meta.url);
  const options = { allErrors: true, strict: false, allowUnionTypes: true };
  let engine: AnyAjv;
  if (draft === "2020-12") {
    const { Ajv2020: Engine }: { Ajv2020: typeof Ajv2020 } = require("ajv/dist/2020.js");
    engine = new Engine(options);
  } else if (draft === "2019-09") {
    const { Ajv2019: Engine }: { Ajv2019: typeof Ajv2019 } = require("ajv/dist/2019.js");
    engine = new Engine(options);
  } else {
    const { Ajv: Engine }: { Ajv: typeof Ajv } = require("ajv");
    engine = new Engine(options);
  }
  const formats: typeof ajvFormats = require("ajv-formats");
  formats.default(engine as Ajv);
  return engine;
}

/**
 * Re-checks a backend's structured output against the step schema. Pass the
 * run's `SchemaValidators` to reuse compiled schemas; without it each call compiles anew.
 */
export function validateStructuredOutput(
  output: unknown,
  schema: JsonSchema,
  validators: SchemaChecker = new SchemaValidators(),
): SchemaCheck {
  if (output === undefined) {
    const problems = [{ instancePath: "", message: "structured output is missing" }];
    return { valid: false, problems, error: describeProblems(problems) };
  }
  return validators.check(output, schema);
}

/** `/a/b: message; /c: message (and 4 more)` */
function describeProblems(problems: readonly SchemaProblem[]): string {
  const shown = problems
    .slice(0, PROBLEMS_IN_MESSAGE)
    .map((problem) => `${problem.instancePath || "(root)"}: ${problem.message}`);
  const more = problems.length - PROBLEMS_IN_MESSAGE;
  return `${shown.join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`;
}

function draftOf(schemaUri: unknown): Draft {
  if (typeof schemaUri !== "string") return "draft-07";
  if (schemaUri.includes("2020-12")) return "2020-12";
  if (schemaUri.includes("2019-09")) return "2019-09";
  return "draft-07";
}

function toProblem(error: ErrorObject): SchemaProblem {
  const params = error.params as Record<string, unknown>;
  const base = error.message ?? error.keyword;
  const extra =
    error.keyword === "additionalProperties"
      ? ` "${String(params.additionalProperty)}"`
      : error.keyword === "enum"
        ? ` (${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")})`
        : "";
  return { instancePath: error.instancePath, message: `${base}${extra}` };
}
