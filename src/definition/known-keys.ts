import { valueAtPath } from "./json-path.js";
import type { JsonSchema } from "./types.js";

type Path = readonly PropertyKey[];

function schemaOptions(schema: JsonSchema): JsonSchema[] | undefined {
  const options = schema.anyOf ?? schema.oneOf;
  return Array.isArray(options) ? (options as JsonSchema[]) : undefined;
}

/** Of a union's options, the object schema that knows most of the value's keys. */
function pickOption(schema: JsonSchema, value: unknown): JsonSchema {
  const options = schemaOptions(schema);
  if (!options) return schema;
  const keys = value !== null && typeof value === "object" ? Object.keys(value) : [];
  const score = (option: JsonSchema) => {
    const properties = (option.properties ?? {}) as Record<string, JsonSchema>;
    return keys.filter((key) => key in properties).length;
  };
  return options.reduce((best, option) => (score(option) > score(best) ? option : best));
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

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      const substitution =
        (previous[column - 1] ?? 0) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current[column] = Math.min(
        (previous[column] ?? 0) + 1,
        (current[column - 1] ?? 0) + 1,
        substitution,
      );
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
