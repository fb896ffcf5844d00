/**
 * The text of the JSON files `closer init` writes, laid out the way biome and prettier print
 * JSON, so that the project's formatter finds nothing to change (docs/cli.md#init-formatters).
 */

/** How the project's formatter lays out JSON. */
export interface JsonStyle {
  /** `"\t"`, or the spaces of one level. */
  readonly indent: string;
  /** The columns one indent counts for the line width (a tab counts as the indent width). */
  readonly indentColumns: number;
  readonly lineWidth: number;
  readonly lineEnding: "\n" | "\r\n";
  /** Every non-empty array one element a line (biome's `expand: "always"`). */
  readonly expandArrays?: boolean;
}

/** Two spaces, 80 columns: prettier's defaults, and biome's with spaces. */
export const DEFAULT_JSON_STYLE: JsonStyle = {
  indent: "  ",
  indentColumns: 2,
  lineWidth: 80,
  lineEnding: "\n",
};

/**
 * `value` as JSON text ending in a newline. Objects are printed one member a line (the
 * formatters keep an object expanded when its first member is on a line of its own); an array
 * of plain values stays on one line when that line fits in the width, else one element a line.
 */
export function formatJson(value: unknown, style: JsonStyle = DEFAULT_JSON_STYLE): string {
  const lines = print(value, { depth: 0, before: 0, after: 0 }, style);
  return `${lines.join(style.lineEnding)}${style.lineEnding}`;
}

/**
 * Where a value is printed: its lines but the first go after the indent of `depth`; its first
 * line continues a line that already holds `before` columns, and `after` columns (a comma)
 * follow its last line.
 */
interface Place {
  readonly depth: number;
  readonly before: number;
  readonly after: number;
}

function print(value: unknown, at: Place, style: JsonStyle): string[] {
  if (Array.isArray(value)) return printArray(value, at, style);
  if (typeof value !== "object" || value === null) return [JSON.stringify(value) ?? "null"];
  const entries = Object.entries(value).filter(([, member]) => member !== undefined);
  if (entries.length === 0) return ["{}"];
  const lines = ["{"];
  entries.forEach(([key, member], index) => {
    const head = `${JSON.stringify(key)}: `;
    const comma = index < entries.length - 1 ? "," : "";
    const inner = {
      depth: at.depth + 1,
      before: (at.depth + 1) * style.indentColumns + head.length,
      after: comma.length,
    };
    const [first = "", ...rest] = print(member, inner, style);
    lines.push(`${style.indent}${head}${first}`, ...rest.map((line) => style.indent + line));
    lines[lines.length - 1] += comma;
  });
  lines.push("}");
  return lines;
}

function printArray(items: readonly unknown[], at: Place, style: JsonStyle): string[] {
  if (items.length === 0) return ["[]"];
  const plain = items.every((item) => typeof item !== "object" || item === null);
  if (plain && style.expandArrays !== true) {
    const flat = `[${items.map((item) => JSON.stringify(item) ?? "null").join(", ")}]`;
    if (at.before + flat.length + at.after <= style.lineWidth) return [flat];
  }
  const lines = ["["];
  items.forEach((item, index) => {
    const comma = index < items.length - 1 ? "," : "";
    const inner = {
      depth: at.depth + 1,
      before: (at.depth + 1) * style.indentColumns,
      after: comma.length,
    };
    lines.push(...print(item, inner, style).map((line) => style.indent + line));
    lines[lines.length - 1] += comma;
  });
  lines.push("]");
  return lines;
}
