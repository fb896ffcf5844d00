import type { CutLimits } from "../ports/prompts.js";

export const DEFAULT_CUT_LIMITS: CutLimits = Object.freeze({
  maxChars: 8000,
  maxNestedChars: 1500,
  maxItems: 40,
});

export interface CutParams {
  readonly params: Record<string, unknown>;
  /** One note per param that was cut, for the record. */
  readonly cuts: readonly string[];
}

/**
 * Keeps the head and the tail of a long text, with a note of how much was cut
 * in between: compiler output matters at the head, test summaries at the tail.
 */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = (cut: number) => `\n[... ${cut} characters cut ...]\n`;
  const room = Math.max(0, maxChars - note(text.length).length);
  const headChars = Math.ceil(room / 2);
  const tailChars = room - headChars;
  const cut = text.length - headChars - tailChars;
  return `${text.slice(0, headChars)}${note(cut)}${tailChars > 0 ? text.slice(-tailChars) : ""}`;
}

/**
 * Cuts every param for a prompt: long strings keep head and tail, long arrays
 * keep their first `maxItems` entries (a string array gets a closing note
 * entry; other arrays keep their element shape, and the note goes to `cuts`).
 */
export function cutParamsForPrompt(
  params: Readonly<Record<string, unknown>>,
  limits: CutLimits = DEFAULT_CUT_LIMITS,
): CutParams {
  const cuts: string[] = [];
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    const before = JSON.stringify(value)?.length ?? 0;
    result[name] = cutValue(value, limits.maxChars, limits);
    const after = JSON.stringify(result[name])?.length ?? 0;
    if (after < before) cuts.push(`${name}: ${before - after} of ${before} characters cut`);
  }
  return { params: result, cuts };
}

function cutValue(value: unknown, maxChars: number, limits: CutLimits): unknown {
  if (typeof value === "string") return cutText(value, maxChars);
  if (Array.isArray(value)) {
    const kept = value
      .slice(0, limits.maxItems)
      .map((item) => cutValue(item, limits.maxNestedChars, limits));
    const omitted = value.length - kept.length;
    const allStrings = value.every((item) => typeof item === "string");
    return omitted > 0 && allStrings ? [...kept, `... and ${omitted} more`] : kept;
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        cutValue(item, limits.maxNestedChars, limits),
      ]),
    );
  }
  return value;
}
