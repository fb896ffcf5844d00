import { createHash } from "node:crypto";
import { lstat, readFile, readlink } from "node:fs/promises";
import path from "node:path";

/** What a run protects from the model (docs/integrity.md#protected-paths). */
export interface ProtectedSet {
  /** The working tree the globs are relative to. */
  readonly cwd: string;
  /** Globs relative to the working tree; a pattern starting with `!` takes paths out. */
  readonly globs: readonly string[];
  /** Folders protected whole (absolute): the agent folder, the run's definition snapshot. */
  readonly folders: readonly string[];
  /** package.json scripts the checks run (compared entry by entry, not the whole file). */
  readonly packageScripts: readonly string[];
}

/** Each protected path (relative to the working tree when inside it) with the hash of its content. */
export type ProtectedFingerprint = Readonly<Record<string, string>>;

/** The files that define how checks run: test-runner and CI configuration at the top of the tree. */
export const DEFAULT_PROTECTED_GLOBS: readonly string[] = Object.freeze([
  "vitest.config.*",
  "vitest.workspace.*",
  "vite.config.*",
  "jest.config.*",
  ".mocharc*",
  "ava.config.*",
  "playwright.config.*",
  "karma.conf.*",
  "pytest.ini",
  "tox.ini",
  "noxfile.py",
  "conftest.py",
  ".github/workflows/**",
  ".gitlab-ci.yml",
  ".circleci/**",
  ".buildkite/**",
  ".travis.yml",
  "azure-pipelines.yml",
  "Jenkinsfile",
  ".ci/**",
]);

const NEVER_WALKED = ["**/node_modules/**", "**/.git/**"];

/** Hashes every protected path as it is now. A path that does not exist is absent from the result. */
export async function fingerprintProtected(set: ProtectedSet): Promise<ProtectedFingerprint> {
  const { glob } = await import("tinyglobby");
  const include = set.globs.filter((pattern) => !pattern.startsWith("!"));
  const exclude = set.globs.filter((pattern) => pattern.startsWith("!")).map((p) => p.slice(1));
  const inTree =
    include.length === 0
      ? []
      : await glob([...include], walkOptions(set.cwd, [...exclude, ...NEVER_WALKED]));
  const files = inTree.map((file) => path.resolve(set.cwd, file));
  for (const folder of set.folders) {
    const inFolder = await glob(["**/*"], walkOptions(folder, ["**/node_modules/**"]));
    files.push(...inFolder.map((file) => path.resolve(folder, file)));
  }
  const fingerprint: Record<string, string> = {};
  for (const file of [...new Set(files)].sort()) {
    const hash = await hashPath(file);
    if (hash !== undefined) fingerprint[shownPath(set.cwd, file)] = hash;
  }
  Object.assign(fingerprint, await fingerprintScripts(set));
  return fingerprint;
}

function walkOptions(cwd: string, ignore: readonly string[]) {
  return {
    cwd,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: [...ignore],
    expandDirectories: false,
  };
}

/** Hash of a file's content, or of a symbolic link's target; undefined when it is gone. */
async function hashPath(file: string): Promise<string | undefined> {
  try {
    const stats = await lstat(file);
    if (stats.isSymbolicLink()) return sha256(`symlink:${await readlink(file)}`);
    if (!stats.isFile()) return undefined;
    return sha256(await readFile(file));
  } catch {
    return undefined;
  }
}

/** `package.json › scripts.test` entries: one per script the checks run. */
async function fingerprintScripts(set: ProtectedSet): Promise<Record<string, string>> {
  const scripts = await readScripts(path.join(set.cwd, "package.json"));
  if (scripts === undefined) return {};
  const entries: Record<string, string> = {};
  for (const name of set.packageScripts) {
    const value = scripts[name];
    if (value !== undefined) entries[`package.json › scripts.${name}`] = sha256(String(value));
  }
  return entries;
}

async function readScripts(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as { scripts?: unknown };
    const { scripts } = parsed;
    return scripts !== null && typeof scripts === "object"
      ? (scripts as Record<string, unknown>)
      : {};
  } catch {
    return undefined;
  }
}

function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
