import type { JsonSchema } from "../ports/runner-config.js";
import { valueAtPath } from "./json-path.js";

type Path = readonly PropertyKey[];

function schemaOptions(schema: JsonSchema): JsonSchema[] | undefined {
  const options = schema.anyOf ?? schema.oneOf;
  return Array.isArray(options) ? (options as JsonSchema[]) : undefined;
}

/**
 * Of a union's options, the object schema that knows most of the value's keys. An option
 * that forbids a key the value has (`not: {}`) or whose `const` the value contradicts (the
 * `type` of a validator) is ruled out.
 */
function pickOption(schema: JsonSchema, value: unknown): JsonSchema {
  const options = schemaOptions(schema);
  if (!options) return schema;
  const entries =
    value !== null && typeof value === "object" ? Object.entries(value as object) : [];
  const score = (option: JsonSchema) => {
    const properties = (option.properties ?? {}) as Record<string, JsonSchema>;
    let known = 0;
    for (const [key, inner] of entries) {
      const property = properties[key];
      if (property === undefined) continue;
      if (isForbidden(property) || ("const" in property && property.const !== inner)) return -1;
      known++;
    }
    return known;
  };
  return options.reduce((best, option) => (score(option) > score(best) ? option : best));
}

function isForbidden(schema: JsonSchema): boolean {
  const not = schema.not;
  return not !== null && typeof not === "object" && Object.keys(not).length === 0;
}

/** The keys the schema allows at `path` (choosing union options by what `data` holds there). */
export function knownKeysAt(schema: JsonSchema, path: Path, data: unknown): string[] {
  let node: JsonSchema | undefined = schema;
  for (let depth = 0; depth < path.length && node; depth++) {
    const here: JsonSchema = pickOption(node, valueAtPath(data, path.slice(0, depth)));
    const key = path[depth];
    const properties = here.properties as Record<string, JsonSchema> | undefined;
    const additional = here.additionalProperties;
    const additionalSchema =
      typeof additional === "object" ? (additional as JsonSchema) : undefined;
    node =
      typeof key === "number"
        ? (here.items as JsonSchema | undefined)
        : (properties?.[String(key)] ?? additionalSchema);
  }
  if (!node) return [];
  const target = pickOption(node, valueAtPath(data, path));
  return Object.keys((target.properties ?? {}) as object);
}

/** The known key a misspelt one was most likely meant to be, if any is close. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance =
      candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (
      distance <= Math.max(1, Math.floor(candidate.length / 4)) &&
      (!best || distance < best.distance)
    ) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn one word into the other. */
function editDistance(left: string, right: string): number {
  const rows = Array.from({ length: left.length + 1 }, (_, row) =>
    Array.from({ length: right.length + 1 }, (_, column) => (row === 0 ? column : row)),
  );
  const at = (row: number, column: number) => rows[row]?.[column] ?? 0;
  for (let row = 1; row <= left.length; row++) {
    for (let column = 1; column <= right.length; column++) {
      const same = left[row - 1] === right[column - 1];
      let best = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1);
      best = Math.min(best, at(row - 1, column - 1) + (same ? 0 : 1));
      const swapped = left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1];
      if (row > 1 && column > 1 && swapped) best = Math.min(best, at(row - 2, column - 2) + 1);
      (rows[row] as number[])[column] = best;
    }
  }
  return at(left.length, right.length);
}
