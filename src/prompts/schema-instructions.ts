/**
 * The section closer appends to a prompt for a backend that cannot make the
 * model answer in the output schema (docs/backends.md#schema-instructions):
 * the JSON shape in words, a valid example, and the request to end the answer
 * with that object — which the decision channels and the format check read
 * from the text (docs/completion.md#decision-channels).
 */

import { isPlainObject } from "../plain-object.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { exampleOf, firstAlternative, primaryType, requiredOf, typesOf } from "./schema-example.js";

const HEADING = "## Answer format";

/** `prompt` with the schema's answer format appended. */
export function appendSchemaInstructions(prompt: string, schema: JsonSchema): string {
  return `${prompt.trimEnd()}\n\n${schemaInstructions(schema)}`;
}

/** The appended section: the shape, an example, and where the object goes. */
export function schemaInstructions(schema: JsonSchema): string {
  const shape = describeShape(schema);
  const example = JSON.stringify(exampleOf(schema), null, 2);
  return [
    HEADING,
    "",
    "End your answer with one JSON object in this format; closer reads the last JSON object of your answer and nothing else.",
    "",
    ...(shape.length === 0
      ? [`The value: ${describeType(schema)}.`]
      : ["Its fields:", "", ...shape]),
    "",
    "A valid example (with your own values):",
    "",
    "```json",
    example,
    "```",
    "",
    'Put the object last, alone in a ```json block or as plain JSON, with no text after it. Use exactly the field names above; fields marked "required" must be present.',
    "",
  ].join("\n");
}

/** One line per property, nested properties indented under their parent. */
export function describeShape(schema: JsonSchema, depth = 0): string[] {
  const target = objectSchemaOf(schema);
  if (target === undefined) return [];
  const properties = isPlainObject(target.properties) ? target.properties : {};
  const required = new Set(requiredOf(target));
  const lines: string[] = [];
  const indent = "  ".repeat(depth);
  for (const [name, property] of Object.entries(properties)) {
    const child = isPlainObject(property) ? property : {};
    const presence = required.has(name) ? "required" : "optional";
    const description = typeof child.description === "string" ? ` — ${child.description}` : "";
    lines.push(`${indent}- \`${name}\` (${presence}): ${describeType(child)}${description}`);
    lines.push(...describeShape(child, depth + 1));
  }
  if (target.additionalProperties === false && lines.length > 0) {
    lines.push(`${indent}- no other fields`);
  }
  return lines;
}

/** `string, one of "a", "b"`, `array of objects`, `integer or null`, … */
export function describeType(schema: unknown): string {
  if (!isPlainObject(schema)) return "any JSON value";
  if ("const" in schema) return `exactly ${JSON.stringify(schema.const)}`;
  const alternatives = alternativesOf(schema);
  if (alternatives !== undefined) return `one of: ${alternatives.map(describeType).join(" | ")}`;
  const type = primaryType(schema);
  const nullable = typesOf(schema).includes("null") && type !== "null";
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  let text = type === "array" ? describeArray(schema.items) : type;
  if (values !== undefined) text += `, one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  return nullable ? `${text} or null` : text;
}

function describeArray(items: unknown): string {
  if (!isPlainObject(items)) return "array";
  if (objectSchemaOf(items) === items) return "array of objects, each:";
  return `array, each item: ${describeType(items)}`;
}

/** The object schema whose properties are listed: the schema itself, or an array's items. */
function objectSchemaOf(schema: JsonSchema): JsonSchema | undefined {
  if (alternativesOf(schema) !== undefined) return undefined;
  const type = primaryType(schema);
  if (type === "object") return schema;
  if (type === "array" && isPlainObject(schema.items) && primaryType(schema.items) === "object") {
    return schema.items;
  }
  return undefined;
}

function alternativesOf(schema: JsonSchema): unknown[] | undefined {
  if (firstAlternative(schema) === undefined) return undefined;
  const list = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf;
  return Array.isArray(list) ? list : undefined;
}
