/**
 * Writes schemas/agent.schema.json and schemas/steps_registry.schema.json from
 * the zod schemas that validate agent.json and steps_registry.json.
 * Run: npx tsx scripts/generate-schemas.ts
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeJsonSchemaFiles } from "../src/definition/make-json-schema-files.js";

const schemasDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "schemas");
await mkdir(schemasDir, { recursive: true });
for (const [name, text] of Object.entries(makeJsonSchemaFiles())) {
  await writeFile(path.join(schemasDir, name), text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(schemasDir, name))}\n`);
}
