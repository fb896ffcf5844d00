import { join, relative } from "node:path";
import { SchemaResolver } from "../definition/schema-resolver.js";
import { CloserError } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { CompletionStepDefinition, OutputSchemaRef } from "../ports/registry.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { keyPath, type ProblemCollector } from "./problem.js";

/** One property an answer in one schema can never give as another schema needs it. */
interface Conflict {
  /** Dotted path of the property. */
  readonly property: string;
  /** `required`: the completion schema requires it and the answer's schema does not allow it;
   * `forbidden`: the answer's schema requires it and the completion schema does not allow it. */
  readonly kind: "required" | "forbidden";
}

/**
 * A completion step whose format check the declaring answer can never pass
 * (docs/completion.md#unsatisfiable-completion-schema). The model answers a declaration in its
 * step's schema, unless the completion step has a `prompt` of its own and then in the completion
 * step's schema (docs/completion.md#completion-prompt); the answer is then checked against the
 * completion step's `outputSchemaRef` and `responseFormat.requiredFields`. Only what no answer
 * can satisfy is reported: a property one schema requires and the other, closed
 * (`additionalProperties: false`, the resolver's default for object schemas), does not list.
 */
export async function lintDeclarationSchemas(
  agent: ResolvedAgent,
  problems: ProblemCollector,
): Promise<void> {
  const resolver = new SchemaResolver(join(agent.dir, "schemas"));
  const resolve = (ref: OutputSchemaRef): Promise<JsonSchema | undefined> =>
    resolver.resolve(ref).catch((error: unknown) => {
      if (error instanceof CloserError) return undefined; // reported by lintSchemas
      throw error;
    });
  const registryFile = relative(agent.dir, agent.files.registry);
  for (const [stepId, step] of Object.entries(agent.registry.steps)) {
    const completionId = step.completionStep;
    const completion =
      completionId === undefined ? undefined : agent.registry.completionSteps[completionId];
    if (completionId === undefined || completion === undefined) continue;
    const asksOwn = completion.prompt !== undefined && completion.outputSchemaRef !== undefined;
    const answerRef = asksOwn ? completion.outputSchemaRef : step.outputSchemaRef;
    if (answerRef === undefined) continue; // a free-form answer can give anything
    const answer = await resolve(answerRef);
    if (answer === undefined) continue;
    const expectedRef = asksOwn ? undefined : completion.outputSchemaRef;
    const expected = expectedRef === undefined ? undefined : await resolve(expectedRef);
    const conflicts = [
      ...(expected === undefined ? [] : conflictsBetween(answer, expected, "")),
      ...requiredFieldConflicts(answer, completion),
    ];
    const answerer = asksOwn ? `the completion prompt of "${completionId}"` : `step "${stepId}"`;
    for (const conflict of conflicts) {
      const jsonPath =
        conflict.kind === "required" && expectedRef === undefined
          ? `${keyPath("completionSteps", completionId)}.responseFormat.requiredFields`
          : `${keyPath("completionSteps", completionId)}.outputSchemaRef`;
      const expectedName =
        expectedRef === undefined
          ? `its responseFormat's requiredFields`
          : `schema "${expectedRef.schema}" of schemas/${expectedRef.file}`;
      const answerName = `schema "${answerRef.schema}" of schemas/${answerRef.file}`;
      problems.error(
        { file: agent.files.registry, jsonPath },
        conflict.kind === "required"
          ? `completion step "${completionId}" checks a declaration of ${answerer} against ${expectedName}, which requires "${conflict.property}", but ${answerer} answers in ${answerName}, which does not allow "${conflict.property}" (additionalProperties is false): every declaration on stdout fails the format check`
          : `completion step "${completionId}" checks a declaration of ${answerer} against ${expectedName}, which does not allow "${conflict.property}" (additionalProperties is false), but ${answerer} answers in ${answerName}, which requires it: every declaration on stdout fails the format check`,
        conflict.kind === "required"
          ? `add "${conflict.property}" to the properties of ${answerName}, or drop it from what ${expectedName} requires, or give ${keyPath("completionSteps", completionId)} a "prompt" so the model answers in its schema (${registryFile})`
          : `add "${conflict.property}" to the properties of ${expectedName}, or stop requiring it in ${answerName}`,
      );
    }
  }
}

/** What an answer in `answer` can never give as `expected` needs, property by property. */
function conflictsBetween(answer: JsonSchema, expected: JsonSchema, at: string): Conflict[] {
  const conflicts: Conflict[] = [];
  const answerRequired = requiredOf(answer);
  const expectedRequired = requiredOf(expected);
  for (const property of expectedRequired) {
    if (!allows(answer, property)) conflicts.push({ property: at + property, kind: "required" });
  }
  for (const property of answerRequired) {
    if (!allows(expected, property)) conflicts.push({ property: at + property, kind: "forbidden" });
  }
  // A property the answer must carry has to satisfy both schemas' definitions of it.
  for (const property of new Set([...answerRequired, ...expectedRequired])) {
    const inAnswer = propertyOf(answer, property);
    const inExpected = propertyOf(expected, property);
    if (inAnswer !== undefined && inExpected !== undefined) {
      conflicts.push(...conflictsBetween(inAnswer, inExpected, `${at}${property}.`));
    }
  }
  return conflicts;
}

/** `responseFormat.requiredFields` (dotted paths) the answer's schema can never carry. */
function requiredFieldConflicts(
  answer: JsonSchema,
  completion: CompletionStepDefinition,
): Conflict[] {
  const format = completion.responseFormat;
  if (format?.type !== "json") return [];
  return format.requiredFields
    .filter((field) => {
      let schema: JsonSchema | undefined = answer;
      for (const key of field.split(".")) {
        if (schema === undefined) return false;
        if (!allows(schema, key)) return true;
        schema = propertyOf(schema, key);
      }
      return false;
    })
    .map((property) => ({ property, kind: "required" }));
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}

function propertyOf(schema: JsonSchema, property: string): JsonSchema | undefined {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return undefined;
  const value = properties[property];
  return isPlainObject(value) ? value : undefined;
}

/** Whether an object valid against `schema` may have `property` at all. */
function allows(schema: JsonSchema, property: string): boolean {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  if (Object.hasOwn(properties, property)) return properties[property] !== false;
  if (schema.patternProperties !== undefined) return true;
  return schema.additionalProperties !== false;
}
