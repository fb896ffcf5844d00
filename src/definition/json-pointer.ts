/**
 * JSON Pointer (RFC 6901) as used in `$ref` fragments: `#/$defs/a~1b` names the
 * key `a/b` of `$defs`. `~1` is `/`, `~0` is `~`, and a fragment may be URI-encoded.
 */

/** `/$defs/a~1b` → ["$defs", "a/b"]; "" → []. Returns undefined for text that is not a pointer. */
export function parseJsonPointer(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** ["$defs", "a/b"] → `/$defs/a~1b`. */
export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((token) => `/${token.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** The value a pointer's tokens lead to, or undefined when there is none. */
export function valueAtPointer(document: unknown, tokens: readonly string[]): unknown {
  let value = document;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      value = value[Number(token)];
    } else if (value !== null && typeof value === "object" && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return value;
}
