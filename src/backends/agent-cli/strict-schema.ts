/**
 * Output schemas in the form OpenAI's strict structured outputs accept
 * (docs/backends.md#strict-schema): every object closed
 * (`additionalProperties: false`) with every property in `required`, and each
 * property that was optional made nullable instead. The answer is read back
 * with `dropNullOptionals`, so a `null` optional reads as absent and closer
 * keeps checking it against the original schema.
 */

import { isPlainObject } from "../../plain-object.js";
import type { JsonSchema } from "../../ports/runner-config.js";

const NESTED_LISTS = ["anyOf", "oneOf", "allOf"] as const;

/** `schema` rewritten for strict structured outputs; the original is left as it is. */
export function strictSchema(schema: JsonSchema): JsonSchema {
  const strict: JsonSchema = { ...schema };
  if (isPlainObject(schema.items)) strict.items = strictSchema(schema.items);
  for (const keyword of NESTED_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) strict[keyword] = list.map(strictNode);
  }
  if (!isObjectSchema(schema)) return strict;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(requiredNames(schema));
  strict.properties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const rewritten = strictNode(property);
      return [name, required.has(name) ? rewritten : nullable(rewritten)];
    }),
  );
  strict.required = Object.keys(properties);
  strict.additionalProperties = false;
  return strict;
}

/**
 * `value` without the `null`s that stand for an absent optional property of
 * `schema` (the original, not the strict one), at any depth.
 */
export function dropNullOptionals(value: unknown, schema: unknown): unknown {
  if (!isPlainObject(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => dropNullOptionals(item, schema.items));
  if (!isPlainObject(value) || !isObjectSchema(schema)) return value;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(requiredNames(schema));
  const kept: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const known = Object.hasOwn(properties, name);
    if (field === null && known && !required.has(name)) continue;
    kept[name] = known ? dropNullOptionals(field, properties[name]) : field;
  }
  return kept;
}

function strictNode(node: unknown): unknown {
  return isPlainObject(node) ? strictSchema(node) : node;
}

/** The schema also accepting `null`. */
function nullable(node: unknown): unknown {
  if (!isPlainObject(node)) return node;
  if (Array.isArray(node.anyOf)) {
    const hasNull = node.anyOf.some((option) => isPlainObject(option) && option.type === "null");
    return hasNull ? node : { ...node, anyOf: [...node.anyOf, { type: "null" }] };
  }
  // An object or a constant is kept whole beside null; a primitive type gets "null" added.
  if ("const" in node || node.type === undefined || isObjectSchema(node)) {
    return { anyOf: [node, { type: "null" }] };
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const withNull = types.includes("null") ? types : [...types, "null"];
  const enumWithNull =
    Array.isArray(node.enum) && !node.enum.includes(null) ? { enum: [...node.enum, null] } : {};
  return { ...node, type: withNull, ...enumWithNull };
}

function isObjectSchema(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes("object") || isPlainObject(schema.properties);
}

function requiredNames(schema: JsonSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}
