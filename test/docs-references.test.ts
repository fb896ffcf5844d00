/**
 * The code cites the documentation as `docs/<file>.md#<anchor>` (see
 * docs/style.md#citing-the-docs). Every such citation must point at a file
 * that exists and an anchor it has, and the code may not cite documents that
 * are not part of the repository. A path without an anchor that is a whole
 * string literal (`"docs/report.md"`, an example file of a validator) is
 * data, not a citation.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const THIS_FILE = fileURLToPath(import.meta.url);

/** `docs/loop.md#rule-6`, or `docs/loop.md` for a whole file. */
const CITATION = /\bdocs\/([A-Za-z0-9._/-]+?\.md)(?:#([A-Za-z0-9_-]*[A-Za-z0-9_]))?/g;

/** Text that cites a document outside the repository. */
const OUTSIDE_CITATIONS: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /SPEC §/, what: "a SPEC section" },
  { pattern: /DESIGN principle/, what: "a DESIGN principle" },
  { pattern: /§/, what: "a § section number" },
  { pattern: /\bseeds? 00\d/i, what: "a seed document" },
];

interface Place {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

function listFiles(folder: string, extension: string): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(folder)) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) found.push(...listFiles(path, extension));
    else if (path.endsWith(extension)) found.push(path);
  }
  return found.sort();
}

function linesOf(file: string): string[] {
  return readFileSync(file, "utf8").split(/\r?\n/);
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor of a Markdown file: explicit `id`/`name` attributes and heading slugs. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fenceMark !== undefined) {
      fence = fence === undefined ? fenceMark : fence === fenceMark ? undefined : fence;
      continue;
    }
    if (fence !== undefined) continue;
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) {
      anchors.add(match[1] as string);
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();

function anchorsOfDoc(docPath: string): Set<string> {
  let anchors = anchorCache.get(docPath);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(docPath, "utf8"));
    anchorCache.set(docPath, anchors);
  }
  return anchors;
}

/** What is wrong with one citation, or undefined when it resolves. */
function checkCitation(docFile: string, anchor: string | undefined): string | undefined {
  const docPath = join(ROOT, "docs", docFile);
  if (!existsSync(docPath)) return `docs/${docFile} does not exist`;
  if (anchor === undefined || anchorsOfDoc(docPath).has(anchor)) return undefined;
  return `docs/${docFile} has no anchor "${anchor}"`;
}

/** A match without an anchor that is a whole quoted string, e.g. `"docs/intro.md"`. */
function isStringLiteral(text: string, match: RegExpMatchArray): boolean {
  if (match[2] !== undefined || match.index === undefined) return false;
  const before = text[match.index - 1];
  const after = text[match.index + match[0].length];
  return before !== undefined && `"'\``.includes(before) && after === before;
}

function brokenCitations(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    linesOf(file).forEach((text, index) => {
      for (const match of text.matchAll(CITATION)) {
        if (isStringLiteral(text, match)) continue;
        const problem = checkCitation(match[1] as string, match[2]);
        if (problem !== undefined) {
          broken.push(`${relative(ROOT, file)}:${index + 1}: ${match[0]}: ${problem}`);
        }
      }
    });
  }
  return broken;
}

const sourceFiles = listFiles(join(ROOT, "src"), ".ts");
const testFiles = listFiles(join(ROOT, "test"), ".ts").filter((file) => file !== THIS_FILE);

describe("references to the documentation", () => {
  it("finds the sources and the docs", () => {
    expect(sourceFiles.length).toBeGreaterThan(0);
    expect(existsSync(join(ROOT, "docs"))).toBe(true);
  });

  it("every docs/<file>.md#<anchor> cited in src/ exists", () => {
    expect(brokenCitations(sourceFiles)).toEqual([]);
  });

  it("every docs/<file>.md#<anchor> cited in test/ exists", () => {
    expect(brokenCitations(testFiles)).toEqual([]);
  });

  it("src/ cites no document outside the repository (SPEC, DESIGN, seeds)", () => {
    const outside: Place[] = [];
    for (const file of sourceFiles) {
      linesOf(file).forEach((text, index) => {
        if (OUTSIDE_CITATIONS.some(({ pattern }) => pattern.test(text))) {
          outside.push({ file: relative(ROOT, file), line: index + 1, text: text.trim() });
        }
      });
    }
    const found = outside.map((place) => {
      const what = OUTSIDE_CITATIONS.find(({ pattern }) => pattern.test(place.text))?.what;
      return `${place.file}:${place.line}: cites ${what}: ${place.text}`;
    });
    expect(found).toEqual([]);
  });

  it("no doc gives two places the same explicit anchor (a link would reach only the first)", () => {
    const repeated: string[] = [];
    for (const doc of listFiles(join(ROOT, "docs"), ".md")) {
      const ids = [...readFileSync(doc, "utf8").matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)].map(
        (match) => match[1] as string,
      );
      for (const id of new Set(ids.filter((id, index) => ids.indexOf(id) !== index))) {
        repeated.push(`${relative(ROOT, doc)}: #${id}`);
      }
    }
    expect(repeated).toEqual([]);
  });

  it("every relative link between the docs resolves", () => {
    const broken: string[] = [];
    for (const doc of listFiles(join(ROOT, "docs"), ".md")) {
      linesOf(doc).forEach((text, index) => {
        for (const match of text.matchAll(/\]\(([A-Za-z0-9._/-]*\.md)?(?:#([^)\s]+))?\)/g)) {
          const target = match[1] === undefined ? doc : resolve(dirname(doc), match[1]);
          const where = `${relative(ROOT, doc)}:${index + 1}: ${match[0]}`;
          const shown = relative(ROOT, target);
          if (!existsSync(target)) {
            broken.push(`${where}: ${shown} does not exist`);
          } else if (match[2] !== undefined && !anchorsOfDoc(target).has(match[2])) {
            broken.push(`${where}: no anchor "${match[2]}" in ${shown}`);
          }
        }
      });
    }
    expect(broken).toEqual([]);
  });
});

describe("anchorsOf", () => {
  it("reads explicit ids and GitHub heading slugs, and skips code blocks", () => {
    const anchors = anchorsOf(
      [
        '<a id="rule-6"></a>',
        "### Rule 6: terminal states are `distinct`",
        "## Waits and backoff",
        "## Waits and backoff",
        "```",
        "# not a heading",
        "```",
      ].join("\n"),
    );
    expect([...anchors].sort()).toEqual([
      "rule-6",
      "rule-6-terminal-states-are-distinct",
      "waits-and-backoff",
      "waits-and-backoff-1",
    ]);
  });
});
