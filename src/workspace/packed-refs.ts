/**
 * The replacement refs (`refs/replace/…`) of a `packed-refs` file, the part
 * of it the git state keeps (docs/integrity.md#git-state). Every other entry
 * is git's and the model's own work: branches packed by `git gc`, a tag the
 * model deleted, the runs beside it.
 */

/** One ref of the file: its line and the peeled line (`^<object>`) that may follow it. */
interface PackedEntry {
  readonly name: string;
  readonly lines: readonly string[];
}

const REPLACE_PREFIX = "refs/replace/";

/** The header lines (`# pack-refs with: …`) and the entries, in the file's order. */
function readPackedRefs(text: string): { header: string[]; entries: PackedEntry[] } {
  const header: string[] = [];
  const entries: { name: string; lines: string[] }[] = [];
  for (const line of text.split("\n")) {
    const last = entries[entries.length - 1];
    if (line === "") continue;
    if (line.startsWith("#")) header.push(line);
    else if (line.startsWith("^") && last !== undefined) last.lines.push(line);
    else entries.push({ name: line.slice(line.indexOf(" ") + 1), lines: [line] });
  }
  return { header, entries };
}

const isReplacement = (entry: PackedEntry) => entry.name.startsWith(REPLACE_PREFIX);

/** The replacement refs of a packed-refs file, one line each ("" when it has none or is absent). */
export function replacementRefsOf(content: Buffer | undefined): string {
  if (content === undefined) return "";
  const { entries } = readPackedRefs(content.toString("utf8"));
  return entries
    .filter(isReplacement)
    .flatMap((entry) => entry.lines)
    .join("\n");
}

/**
 * The file as it is now with the replacement refs it had when kept, sorted by
 * name as git writes it (git may look a ref up by bisection).
 */
export function withKeptReplacementRefs(
  current: Buffer | undefined,
  kept: Buffer | undefined,
): Buffer {
  const now = readPackedRefs(current?.toString("utf8") ?? "");
  const before = readPackedRefs(kept?.toString("utf8") ?? "");
  const entries = [
    ...now.entries.filter((entry) => !isReplacement(entry)),
    ...before.entries.filter(isReplacement),
  ].sort((left, right) => Buffer.compare(Buffer.from(left.name), Buffer.from(right.name)));
  const header = current === undefined ? before.header : now.header;
  const lines = [...header, ...entries.flatMap((entry) => entry.lines)];
  return Buffer.from(lines.length === 0 ? "" : `${lines.join("\n")}\n`);
}
