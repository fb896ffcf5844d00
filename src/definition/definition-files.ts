import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { CloserError } from "../errors.js";
import type { DefinitionFile, DefinitionFiles } from "../ports/agent.js";
import { isInsideFolder } from "./inside-path.js";

export type { DefinitionFile, DefinitionFiles };

/** The most a definition may hold: every run keeps a copy (docs/integrity.md#definition-snapshot). */
export const MAX_DEFINITION_BYTES = 20 * 1024 * 1024;

/**
 * Reads every file of an agent folder: subfolders, and symlinks whose
 * target is inside the folder, included. A symlink that leads out of it is
 * skipped (and named); more than `maxBytes` (default MAX_DEFINITION_BYTES)
 * is a `config_error`.
 */
export async function readDefinitionFiles(
  dir: string,
  options: { readonly maxBytes?: number } = {},
): Promise<DefinitionFiles> {
  const root = await realpath(dir).catch((error: unknown) => {
    throw new CloserError("not_found", `the agent folder ${dir} cannot be read`, {
      file: dir,
      fix: "check that the folder exists and can be read",
      cause: error,
    });
  });
  const maxBytes = options.maxBytes ?? MAX_DEFINITION_BYTES;
  const walk: Walk = { root, dir, maxBytes, files: [], skipped: [], bytes: 0 };
  await readFolder(walk, root, "", new Set([root]));
  const files = walk.files.sort((left, right) => compareText(left.path, right.path));
  return Object.freeze({
    files: Object.freeze(files.map((file) => Object.freeze(file))),
    hash: hashDefinitionFiles(files),
    skipped: Object.freeze(walk.skipped.sort(compareText)),
  });
}

/**
 * `agent` with the files it was loaded from, as a property that is not
 * enumerable (ResolvedAgent's `definitionFiles`); set before it is frozen.
 */
export function withDefinitionFiles<T extends object>(
  agent: T,
  files: DefinitionFiles | undefined,
): T {
  if (files !== undefined) {
    Object.defineProperty(agent, "definitionFiles", { value: files, enumerable: false });
  }
  return agent;
}

/** sha256 (hex) over each file's path, length and content, in the order given. */
export function hashDefinitionFiles(files: readonly Omit<DefinitionFile, "mode">[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file.path}\0${file.content.length}\0`);
    hash.update(file.content);
  }
  return hash.digest("hex");
}

interface Walk {
  /** The folder's real path. */
  readonly root: string;
  /** The folder as given, for messages. */
  readonly dir: string;
  readonly maxBytes: number;
  readonly files: DefinitionFile[];
  readonly skipped: string[];
  bytes: number;
}

/** Reads one folder; `seen` holds the real paths of the folders above it (a symlink loop stops). */
async function readFolder(
  walk: Walk,
  folder: string,
  relative: string,
  seen: ReadonlySet<string>,
): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  for (const entry of entries) {
    const entryRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const target = await targetOf(walk, path.join(folder, entry.name), entry);
    if (target === undefined) {
      walk.skipped.push(entryRelative);
      continue;
    }
    if (target.kind === "folder" && !seen.has(target.real)) {
      await readFolder(walk, target.real, entryRelative, new Set([...seen, target.real]));
    }
    if (target.kind === "file") await readOne(walk, target.real, entryRelative);
  }
}

type Target = { kind: "file" | "folder" | "other"; real: string };

/** What an entry is, following a symlink; undefined for a symlink that leaves the folder. */
async function targetOf(walk: Walk, entryPath: string, entry: Dirent): Promise<Target | undefined> {
  if (!entry.isSymbolicLink()) {
    const kind = entry.isDirectory() ? "folder" : entry.isFile() ? "file" : "other";
    return { kind, real: entryPath };
  }
  const real = await realpath(entryPath).catch(() => undefined);
  if (real === undefined || !isInsideFolder(walk.root, real)) return undefined;
  const info = await stat(real);
  return { kind: info.isDirectory() ? "folder" : info.isFile() ? "file" : "other", real };
}

async function readOne(walk: Walk, file: string, relative: string): Promise<void> {
  const info = await stat(file);
  walk.bytes += info.size;
  if (walk.bytes > walk.maxBytes) throw tooLarge(walk.dir, walk.maxBytes);
  const content = await readFile(file);
  walk.files.push({ path: relative, content, mode: info.mode & 0o777 });
}

function tooLarge(dir: string, maxBytes: number): CloserError {
  const limit = maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`;
  return new CloserError("config_error", `the agent folder ${dir} holds more than ${limit}`, {
    file: dir,
    expected: `at most ${limit}: prompts, schemas, registry and validator modules`,
    fix: "every run keeps a copy of the agent folder: move large files (installed packages, data) out of it; a custom validator's packages resolve from the project's node_modules",
  });
}

/** Plain code-unit order, the same on every machine. */
function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
