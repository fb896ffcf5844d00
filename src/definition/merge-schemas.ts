import { isPlainObject } from "../plain-object.js";
import type { JsonSchema } from "../ports/runner-config.js";

/**
 * Merges two schemas the way `allOf` inheritance is meant: `override` wins,
 * `properties` are merged key by key (so a step can narrow one property of a
 * shared base, e.g. `next_action.action`), and `required` lists are unioned.
 */
export function mergeSchemas(base: JsonSchema, override: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...base, ...override };
  const baseProperties = asSchemaMap(base.properties);
  const ownProperties = asSchemaMap(override.properties);
  if (baseProperties && ownProperties) {
    const properties: Record<string, JsonSchema> = { ...baseProperties };
    for (const [key, schema] of Object.entries(ownProperties)) {
      const inherited = properties[key];
      properties[key] =
        isPlainObject(inherited) && isPlainObject(schema)
          ? mergeSchemas(inherited, schema)
          : schema;
    }
    merged.properties = properties;
  }
  if (Array.isArray(base.required) && Array.isArray(override.required)) {
    merged.required = [...new Set([...base.required, ...override.required])];
  }
  return merged;
}

/** Whether a schema describes objects: it says `type: object` or lists `properties`. */
export function isObjectSchema(schema: JsonSchema): boolean {
  const type = schema.type;
  return (
    type === "object" ||
    (Array.isArray(type) && type.includes("object")) ||
    (schema.properties !== null && typeof schema.properties === "object")
  );
}

function asSchemaMap(value: unknown): Record<string, JsonSchema> | undefined {
  return isPlainObject(value) ? (value as Record<string, JsonSchema>) : undefined;
}
