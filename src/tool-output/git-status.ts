/** One line of `git status --porcelain` (v1). */
export interface GitStatusEntry {
  /** The two status letters `XY`, e.g. `M `, ` M`, `R `, `??`. */
  readonly status: string;
  readonly path: string;
  /** The source of a rename or copy. */
  readonly originalPath?: string;
}

const ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};

/** Reads a C-quoted path starting at `start` (on the opening quote); returns it and the index after it. */
function readQuoted(text: string, start: number): { value: string; end: number } | undefined {
  const bytes: number[] = [];
  let index = start + 1;
  while (index < text.length) {
    const char = String.fromCodePoint(text.codePointAt(index) as number);
    if (char === '"') return { value: Buffer.from(bytes).toString("utf8"), end: index + 1 };
    if (char === "\\") {
      const octal = /^[0-7]{3}/.exec(text.slice(index + 1, index + 4));
      if (octal) {
        bytes.push(Number.parseInt(octal[0], 8) & 0xff);
        index += 4;
        continue;
      }
      const next = String.fromCodePoint(text.codePointAt(index + 1) ?? 0x5c);
      const escaped = ESCAPES[next];
      bytes.push(...(escaped === undefined ? Buffer.from(next, "utf8") : [escaped]));
      index += 1 + next.length;
      continue;
    }
    // Raw UTF-8 appears inside quotes when core.quotePath is off.
    bytes.push(...Buffer.from(char, "utf8"));
    index += char.length;
  }
  return undefined;
}

function readPath(text: string): { value: string; rest: string } | undefined {
  if (text.startsWith('"')) {
    const quoted = readQuoted(text, 0);
    return quoted && { value: quoted.value, rest: text.slice(quoted.end) };
  }
  // An unquoted path holds no space, so " -> " can only be the rename arrow.
  const arrow = text.indexOf(" -> ");
  return arrow === -1
    ? { value: text, rest: "" }
    : { value: text.slice(0, arrow), rest: text.slice(arrow) };
}

function readPaths(text: string): { path: string; originalPath?: string } | undefined {
  const first = readPath(text);
  if (!first) return undefined;
  if (first.rest === "") return { path: first.value };
  if (!first.rest.startsWith(" -> ")) return undefined;
  const second = readPath(first.rest.slice(4));
  if (second?.rest !== "") return undefined;
  return { path: second.value, originalPath: first.value };
}

/** Parses `git status --porcelain` (v1) output; lines it doesn't understand are skipped. */
export function parseGitStatus(text: string): GitStatusEntry[] {
  const entries: GitStatusEntry[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line.length < 4 || line[2] !== " " || line.startsWith("## ")) continue;
    const status = line.slice(0, 2);
    if (!/^[ MTADRCU?!]{2}$/.test(status)) continue;
    const paths = readPaths(line.slice(3));
    if (!paths || paths.path === "") continue;
    entries.push({ status, ...paths });
  }
  return entries;
}

/** Paths with changes git tracks (staged or not), i.e. everything but untracked and ignored. */
export function parseChangedFiles(text: string): string[] {
  return parseGitStatus(text)
    .filter((entry) => entry.status !== "??" && entry.status !== "!!")
    .map((entry) => entry.path);
}

/** Paths git does not track yet (`??`). */
export function parseUntrackedFiles(text: string): string[] {
  return parseGitStatus(text)
    .filter((entry) => entry.status === "??")
    .map((entry) => entry.path);
}
