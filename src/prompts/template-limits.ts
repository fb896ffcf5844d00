import { CloserError } from "../errors.js";

/** The most bytes a template file may hold (docs/definition.md#template-limits). */
export const MAX_TEMPLATE_BYTES = 256 * 1024;
/** The deepest blocks (`{{#if}}`, `{{#each}}`, …) may nest in a template. */
export const MAX_TEMPLATE_DEPTH = 100;
/**
 * The most `{{…}}` tags a template may hold: Handlebars' parser spends its
 * time per tag, and a prompt needs tens of them, not thousands.
 */
export const MAX_TEMPLATE_TAGS = 5000;

/**
 * Every `{{`; for a block, its kind: `{{#x}}`, `{{^x}}` (an inverse block; a
 * bare `{{^}}` is an else), `{{/x}}`, each with optional `~`.
 */
const TAG = /\{\{(?:~?\s*([#^/])(\s*~?\}\})?)?/g;

/**
 * Refuses a template over the limits before Handlebars parses it: its parser
 * recurses once per nesting level, so a template nested thousands deep would
 * take minutes and then overflow the stack. One linear scan, whatever the text.
 */
export function assertTemplateLimits(source: string, templatePath: string): void {
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > MAX_TEMPLATE_BYTES) {
    throw new CloserError(
      "validation_error",
      `template is ${kib(bytes)} KiB; the limit is ${kib(MAX_TEMPLATE_BYTES)} KiB`,
      {
        file: templatePath,
        expected: `at most ${MAX_TEMPLATE_BYTES} bytes`,
        found: `${bytes} bytes`,
        fix: "shorten the template: put long reference text in a file of the project and tell the model to read it",
      },
    );
  }
  const over = findOverLimit(source);
  if (over === undefined) return;
  const line = lineAt(source, over.index);
  throw over.limit === "depth"
    ? new CloserError(
        "validation_error",
        `template nests blocks more than ${MAX_TEMPLATE_DEPTH} deep (line ${line})`,
        {
          file: templatePath,
          line,
          expected: `blocks ({{#if}}, {{#each}}, …) nested at most ${MAX_TEMPLATE_DEPTH} deep`,
          found: `${MAX_TEMPLATE_DEPTH + 1} levels at line ${line}`,
          fix: "flatten the template: fewer nested {{#if}}/{{#each}} blocks (combine conditions in the variables instead)",
        },
      )
    : new CloserError(
        "validation_error",
        `template has more than ${MAX_TEMPLATE_TAGS} {{…}} tags (the next one at line ${line})`,
        {
          file: templatePath,
          line,
          expected: `at most ${MAX_TEMPLATE_TAGS} tags`,
          fix: "shorten the template: render lists with {{#each}} instead of repeating tags",
        },
      );
}

/** Where nesting or the number of tags first goes past its limit; undefined when neither does. */
function findOverLimit(source: string): { limit: "depth" | "tags"; index: number } | undefined {
  let depth = 0;
  let tags = 0;
  for (const match of source.matchAll(TAG)) {
    const [, kind, bareClose] = match;
    const index = match.index ?? 0;
    if (++tags > MAX_TEMPLATE_TAGS) return { limit: "tags", index };
    if (kind === undefined) continue;
    if (kind === "/") depth = Math.max(0, depth - 1);
    else if (!(kind === "^" && bareClose !== undefined)) depth++;
    if (depth > MAX_TEMPLATE_DEPTH) return { limit: "depth", index };
  }
  return undefined;
}

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let at = source.indexOf("\n"); at !== -1 && at < index; at = source.indexOf("\n", at + 1)) {
    line++;
  }
  return line;
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1);
}
