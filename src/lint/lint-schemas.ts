import { join, relative } from "node:path";
import { SchemaResolver } from "../definition/schema-resolver.js";
import { CloserError } from "../errors.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { keyPath, type ProblemCollector } from "./problem.js";

/**
 * Resolves every step's and completion step's `outputSchemaRef` as a run would (external and
 * internal `$ref`, `allOf`, cycles) and warns when a step that can complete gives the model no
 * field to declare it with.
 */
export async function lintSchemas(agent: ResolvedAgent, problems: ProblemCollector): Promise<void> {
  const schemasDir = join(agent.dir, "schemas");
  const resolver = new SchemaResolver(schemasDir);
  for (const [id, completionStep] of Object.entries(agent.registry.completionSteps)) {
    const ref = completionStep.outputSchemaRef;
    if (ref === undefined) continue;
    const jsonPath = `${keyPath("completionSteps", id)}.outputSchemaRef`;
    await resolver.resolve(ref).catch((error: unknown) => {
      if (!(error instanceof CloserError)) throw error;
      problems.addError(
        error,
        { file: join(schemasDir, ref.file) },
        `(referenced by ${jsonPath} in ${relative(agent.dir, agent.files.registry)})`,
      );
    });
  }
  for (const [id, step] of Object.entries(agent.registry.steps)) {
    const ref = step.outputSchemaRef;
    if (ref === undefined) continue;
    const jsonPath = `${keyPath("steps", id)}.outputSchemaRef`;
    let schema: JsonSchema;
    try {
      schema = await resolver.resolve(ref);
    } catch (error) {
      if (!(error instanceof CloserError)) throw error;
      problems.addError(
        error,
        { file: join(schemasDir, ref.file) },
        `(referenced by ${jsonPath} in ${relative(agent.dir, agent.files.registry)})`,
      );
      continue;
    }
    const properties = schema.properties;
    const declares =
      typeof properties === "object" &&
      properties !== null &&
      ("status" in properties || "next_action" in properties);
    if (step.completionStep !== undefined && !declares) {
      problems.warning(
        { file: agent.files.registry, jsonPath },
        `schema "${ref.schema}" of step "${id}" has neither a status nor a next_action property, so the model cannot declare completion`,
        'add "status" and "next_action": {"action", "reason"} properties to the schema',
      );
    }
  }
}
