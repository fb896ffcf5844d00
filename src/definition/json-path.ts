const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a path into a parsed JSON file the way a reader would type it in
 * JavaScript: `steps["initial.issue"].next`, `completionConditions[0].validator`.
 * The empty path (the whole file) is the empty string.
 */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") {
      text += `[${key}]`;
      continue;
    }
    const name = String(key);
    if (IDENTIFIER.test(name)) text += text === "" ? name : `.${name}`;
    else text += `[${JSON.stringify(name)}]`;
  }
  return text;
}

/** The value at `path` inside `data`, or undefined when the path leads nowhere. */
export function valueAtPath(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
