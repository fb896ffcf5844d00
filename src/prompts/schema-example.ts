/**
 * A minimal valid instance of a resolved output schema, for the example of the
 * schema instructions (docs/backends.md#schema-instructions): required
 * properties only, the first enum value, `""`, `0`, `false`, `[]`.
 */

import { isPlainObject } from "../plain-object.js";
import type { JsonSchema } from "../ports/runner-config.js";

/** Strings that satisfy the common `format`s ajv-formats checks. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  "date-time": "1970-01-01T00:00:00Z",
  date: "1970-01-01",
  time: "00:00:00Z",
  uri: "https://example.com",
  "uri-reference": "https://example.com",
  url: "https://example.com",
  email: "name@example.com",
  uuid: "00000000-0000-0000-0000-000000000000",
};

/** The smallest value that `schema` accepts, as far as its keywords tell. */
export function exampleOf(schema: unknown): unknown {
  if (!isPlainObject(schema)) return "";
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const alternative = firstAlternative(schema);
  if (alternative !== undefined) return exampleOf(alternative);
  return exampleOfType(schema, primaryType(schema));
}

/** The type an example takes: the first one named other than `null`, else what the keywords imply. */
export function primaryType(schema: JsonSchema): string {
  const types = typesOf(schema);
  const named = types.find((type) => type !== "null") ?? types[0];
  if (named !== undefined) return named;
  if (isPlainObject(schema.properties)) return "object";
  if (schema.items !== undefined) return "array";
  return "string";
}

/** The types a schema names in `type` (a string or a list). */
export function typesOf(schema: JsonSchema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) {
    return schema.type.filter((type): type is string => typeof type === "string");
  }
  return [];
}

/** The first schema of an `anyOf` or `oneOf`. */
export function firstAlternative(schema: JsonSchema): unknown {
  for (const keyword of ["anyOf", "oneOf"]) {
    const alternatives = schema[keyword];
    if (Array.isArray(alternatives) && alternatives.length > 0) return alternatives[0];
  }
  return undefined;
}

function exampleOfType(schema: JsonSchema, type: string): unknown {
  switch (type) {
    case "object":
      return objectExample(schema);
    case "array":
      return arrayExample(schema);
    case "integer":
    case "number":
      return numberExample(schema);
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return stringExample(schema);
  }
}

function objectExample(schema: JsonSchema): Record<string, unknown> {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const example: Record<string, unknown> = {};
  for (const name of requiredOf(schema)) example[name] = exampleOf(properties[name]);
  return example;
}

function arrayExample(schema: JsonSchema): unknown[] {
  const count = typeof schema.minItems === "number" ? schema.minItems : 0;
  return Array.from({ length: count }, () => exampleOf(schema.items));
}

function numberExample(schema: JsonSchema): number {
  if (typeof schema.minimum === "number") return Math.ceil(schema.minimum);
  if (typeof schema.exclusiveMinimum === "number") return Math.floor(schema.exclusiveMinimum) + 1;
  if (typeof schema.maximum === "number" && schema.maximum < 0) return Math.floor(schema.maximum);
  return 0;
}

function stringExample(schema: JsonSchema): string {
  const byFormat = typeof schema.format === "string" ? FORMAT_EXAMPLES[schema.format] : undefined;
  if (byFormat !== undefined) return byFormat;
  return typeof schema.minLength === "number" ? "x".repeat(schema.minLength) : "";
}

/** The names in `required` (strings only). */
export function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}
