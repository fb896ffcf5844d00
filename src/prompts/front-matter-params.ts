/**
 * The two shapes of front matter nearly every template has, read without the
 * YAML parser (loading it costs more than the rest of `closer validate`):
 *
 *     params: [failedTests, errorOutput]
 *
 *     params:
 *       - failedTests
 *       - errorOutput
 *
 * Only names that YAML reads as plain strings are taken; anything else —
 * another key, a comment, quotes, a name YAML would read as a boolean or null —
 * answers `undefined`, and the caller parses the text as YAML
 * (docs/definition.md#front-matter).
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Words YAML reads as something other than a string (core schema, and YAML 1.1's booleans). */
const NOT_STRINGS = new Set(["true", "false", "null", "yes", "no", "on", "off", "y", "n"]);
const FLOW = /^params:[ \t]+\[([^\][{}#"'&*!|>%@`]*)\][ \t]*$/;
const BLOCK_KEY = /^params:[ \t]*$/;
const BLOCK_ITEM = /^( *)- ([^ \t]+)[ \t]*$/;

export function readSimpleParams(frontMatter: string): string[] | undefined {
  const lines = frontMatter.split("\n");
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
  const [first, ...rest] = lines;
  if (first === undefined) return undefined;
  const flow = FLOW.exec(first);
  if (flow !== null) return rest.length === 0 ? flowNames(flow[1] ?? "") : undefined;
  if (!BLOCK_KEY.test(first) || rest.length === 0) return undefined;
  return blockNames(rest);
}

function flowNames(inside: string): string[] | undefined {
  if (inside.trim() === "") return [];
  const names = inside.split(",").map((item) => item.trim());
  return names.every(isPlainName) ? names : undefined;
}

function blockNames(lines: readonly string[]): string[] | undefined {
  const names: string[] = [];
  let indent: string | undefined;
  for (const line of lines) {
    const item = BLOCK_ITEM.exec(line);
    if (item === null || item[2] === undefined || !isPlainName(item[2])) return undefined;
    indent ??= item[1];
    if (item[1] !== indent) return undefined;
    names.push(item[2]);
  }
  return names;
}

function isPlainName(text: string): boolean {
  return NAME.test(text) && !NOT_STRINGS.has(text.toLowerCase());
}
