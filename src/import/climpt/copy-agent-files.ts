import { cp, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { RenamedPattern } from "./map-registry.js";
import type { MappingEntry } from "./mapping-report.js";

/** Folders of a climpt agent copied as they are (the prompts' placeholders aside). */
export const COPIED_FOLDERS: readonly string[] = ["prompts", "schemas"];
/** `{uv-issue}`: a value climpt puts in from the command line. */
const UV_PLACEHOLDER = /\{uv-([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** `{issue_content}`: a value climpt's runner computes; one brace, so Handlebars leaves it as text. */
const RUNNER_PLACEHOLDER = /(?<!\{)\{([a-z][a-z0-9_]*)\}(?!\})/g;

/**
 * Copies prompts/ and schemas/ of a climpt agent into `out`. In each prompt, `{uv-NAME}`
 * (a value climpt takes from the command line) becomes the Handlebars variable `{{NAME}}`;
 * every other one-brace placeholder stays as written and is reported, with its file.
 */
export async function copyAgentFiles(
  source: string,
  out: string,
  parameterNames: readonly string[],
): Promise<MappingEntry[]> {
  const entries: MappingEntry[] = [];
  for (const folder of COPIED_FOLDERS) {
    const from = path.join(source, folder);
    if (!(await isFolder(from))) continue;
    await cp(from, path.join(out, folder), { recursive: true });
    entries.push({ file: `${folder}/`, from: "", to: `${folder}/ (copied)` });
  }
  const parameters = new Set(parameterNames);
  for (const file of await markdownFiles(path.join(out, "prompts"))) {
    const relative = path.relative(out, file).split(path.sep).join("/");
    const text = await readFile(file, "utf8");
    const rewritten = text.replace(UV_PLACEHOLDER, (_whole, name: string) => `{{${name}}}`);
    if (rewritten !== text) await writeFile(file, rewritten);
    entries.push(...placeholderEntries(relative, text, parameters));
  }
  return entries;
}

function placeholderEntries(file: string, text: string, parameters: Set<string>): MappingEntry[] {
  const entries = new Map<string, MappingEntry>();
  for (const [whole, name] of text.matchAll(UV_PLACEHOLDER)) {
    entries.set(
      whole,
      parameters.has(name ?? "")
        ? { file, from: whole, to: `{{${name}}}`, note: "the parameter of that name" }
        : { file, from: whole, to: `{{${name}}}`, note: "a parameter added for it" },
    );
  }
  for (const [whole] of text.matchAll(RUNNER_PLACEHOLDER)) {
    entries.set(whole, {
      file,
      from: whole,
      note: "filled by climpt's runner; closer has no such variable: left as written",
    });
  }
  return [...entries.values()];
}

async function isFolder(place: string): Promise<boolean> {
  return (await stat(place).catch(() => undefined))?.isDirectory() ?? false;
}

export async function markdownFiles(folder: string): Promise<string[]> {
  if (!(await isFolder(folder))) return [];
  const names = await readdir(folder, { recursive: true, withFileTypes: true });
  return names
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Moves the templates of each renamed pattern to its new adaptation, in every prompt folder. */
export async function renameTemplates(
  out: string,
  renamed: readonly RenamedPattern[],
): Promise<MappingEntry[]> {
  const entries: MappingEntry[] = [];
  for (const file of await markdownFiles(path.join(out, "prompts"))) {
    const base = path.basename(file);
    const rename_ = renamed.find(
      ({ edition, adaptation }) => base === `f_${edition}_${adaptation.from}.md`,
    );
    if (rename_ === undefined || rename_.adaptation.from === rename_.adaptation.to) continue;
    const target = path.join(
      path.dirname(file),
      `f_${rename_.edition}_${rename_.adaptation.to}.md`,
    );
    await rename(file, target);
    const relative = (place: string) => path.relative(out, place).split(path.sep).join("/");
    entries.push({
      file: relative(file),
      from: "",
      to: relative(target),
      note: `the template of pattern ${rename_.to}; ${rename_.from} is closer's own pattern`,
    });
  }
  return entries;
}
