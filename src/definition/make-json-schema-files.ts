import { z } from "zod";
import { agentFileSchema } from "./agent-file-schema.js";
import { registryFileSchema } from "./registry-file-schema.js";

/** File name under `schemas/` → its text, generated from the schemas that validate the files. */
export function makeJsonSchemaFiles(): Record<string, string> {
  return {
    "agent.schema.json": toText(agentFileSchema),
    "steps_registry.schema.json": toText(registryFileSchema),
  };
}

function toText(schema: z.ZodType): string {
  // Input view: a field with a default is optional in the file and shows its default.
  return `${JSON.stringify(z.toJSONSchema(schema, { io: "input" }), null, 2)}\n`;
}
