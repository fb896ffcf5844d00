/**
 * What the files of an unpacked package point at by relative path — source
 * maps' sources, `sourceMappingURL`s, relative imports and requires, Markdown
 * links, JSON `$schema` and `$ref` — and which of those lead outside the
 * package or to a file it does not hold (docs/cli.md#install).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One path a file names, and what is wrong with it. */
export interface BrokenReference {
  readonly file: string;
  readonly reference: string;
  readonly problem: "outside the package" | "missing";
}

const SCRIPT = /\.(?:c|m)?js$|\.d\.ts$/;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](\.\.?\/[^"'\n]+)["']/g;
const SOURCE_MAP_URL = /^\/\/# sourceMappingURL=(\S+)\s*$/gm;
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;

/** A path with a scheme (`https:`, `file:`, `data:`) or only a fragment names no file of the package. */
function isRelativePath(reference: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(reference) && !reference.startsWith("#");
}

function withoutFragment(reference: string): string {
  return reference.replace(/[#?].*$/, "");
}

/** The relative paths a JSON document names in `$schema` and `$ref`. */
function schemaReferences(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) schemaReferences(item, found);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if ((key === "$schema" || key === "$ref") && typeof item === "string") found.push(item);
      else schemaReferences(item, found);
    }
  }
  return found;
}

function sourceMapSources(text: string): string[] {
  const map = JSON.parse(text) as { sourceRoot?: string; sources?: string[] };
  return (map.sources ?? []).map((source) => join(map.sourceRoot ?? "", source));
}

/** The relative references of one file, by its kind. */
async function referencesOf(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8");
  if (file.endsWith(".map")) return sourceMapSources(text);
  if (SCRIPT.test(file)) {
    const imports = [...text.matchAll(IMPORT)].map((match) => match[1] ?? "");
    const maps = [...text.matchAll(SOURCE_MAP_URL)].map((match) => match[1] ?? "");
    return [...imports, ...maps];
  }
  if (file.endsWith(".md")) return [...text.matchAll(MARKDOWN_LINK)].map((match) => match[1] ?? "");
  if (file.endsWith(".json")) return schemaReferences(JSON.parse(text));
  return [];
}

/** A `./x.js` import of a declaration file names `./x.d.ts` as well. */
function exists(path: string, from: string): boolean {
  if (existsSync(path)) return true;
  return from.endsWith(".d.ts") && existsSync(path.replace(/\.js$/, ".d.ts"));
}

/** Every reference of the package's `files` (relative to `root`) that is outside it or missing. */
export async function brokenReferences(
  root: string,
  files: readonly string[],
): Promise<BrokenReference[]> {
  const broken: BrokenReference[] = [];
  for (const file of files) {
    const path = join(root, file);
    for (const reference of await referencesOf(path)) {
      if (!isRelativePath(reference) || withoutFragment(reference) === "") continue;
      const target = resolve(dirname(path), decodeURI(withoutFragment(reference)));
      if (!target.startsWith(root + sep)) {
        broken.push({ file, reference, problem: "outside the package" });
      } else if (!exists(target, file)) {
        broken.push({ file, reference, problem: "missing" });
      }
    }
  }
  return broken;
}

/** The package's files, relative to its root, from `tar -tzf` of its tarball. */
export function packedFiles(listing: string): string[] {
  return listing
    .split("\n")
    .filter((line) => line !== "" && !line.endsWith("/"))
    .map((line) => relative("package", line));
}
