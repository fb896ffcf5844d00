/**
 * Where a JSON Schema holds subschemas, so the resolver knows where a `$ref` may sit.
 */

/** Keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
]);

/** Keywords whose value is a list of subschemas. */
export const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
]);

/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "dependentSchemas",
]);

/** Reference targets and identifiers, meaningless once every `$ref` is inlined. */
export const DROPPED_KEYWORDS: ReadonlySet<string> = new Set([
  "$defs",
  "definitions",
  "$id",
  "$schema",
  "$anchor",
]);
