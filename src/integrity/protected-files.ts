import { createHash } from "node:crypto";
import { type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import type { ProtectedFingerprint, ProtectedSet } from "../ports/files.js";
import { identityOf, settledIdentity } from "../workspace/file-identity.js";
import { type BinHashCache, fingerprintBinFolders } from "./bin-folders.js";
import { type FolderCache, listFolder } from "./folder-listing.js";

/**
 * The files that define how checks run, at the top of the tree: test-runner and CI configuration,
 * and the package-manager, runtime and environment files that change how a check's program runs
 * (docs/integrity.md#protected-paths says why each).
 */
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
  ".pytest.ini",
  "tox.ini",
  "setup.cfg",
  "noxfile.py",
  "conftest.py",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  "pnpm-workspace.yaml",
  "bunfig.toml",
  ".nvmrc",
  ".node-version",
  ".python-version",
  ".tool-versions",
  "mise.toml",
  ".mise.toml",
  ".env",
  ".env.*",
  ".gitattributes",
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

/**
 * Content hashes and folder listings kept by identity: device, inode, size,
 * modification and change time. Any write changes the change time (which no
 * user-space call can set back), so a file whose identity is the same was
 * not written (docs/integrity.md#file-identity).
 */
export interface ProtectedCache {
  readonly hashes: Map<string, { readonly identity: string; readonly hash: string }>;
  readonly folders: FolderCache;
  /** The globs are checked after every declaration: each top-name glob is compiled once a run. */
  readonly matchers: Map<string, RegExp>;
  readonly bins: BinHashCache;
}

export function makeProtectedCache(): ProtectedCache {
  return { hashes: new Map(), folders: new Map(), matchers: new Map(), bins: new Map() };
}

/**
 * Hashes every protected path as it is now. A path that does not exist is
 * absent from the result. With a cache, only files written since are read.
 *
 * The file system is read synchronously: after every declaration this is a few
 * directory listings and a `lstat` per file, each a few microseconds, where a
 * round trip through the thread pool cost more than the call
 * (docs/integrity.md#protected-paths).
 */
export async function fingerprintProtected(
  set: ProtectedSet,
  cache: ProtectedCache = makeProtectedCache(),
): Promise<ProtectedFingerprint> {
  const files = (await listTreeFiles(set.workTree, set.globs, cache)).map((file) =>
    path.resolve(set.workTree, file),
  );
  for (const folder of set.folders) files.push(...listFolder(folder, cache.folders));
  const fingerprint: Record<string, string> = {};
  const nowMs = Date.now();
  for (const file of [...new Set(files)].sort()) {
    const hash = hashPath(file, cache, nowMs);
    if (hash !== undefined) fingerprint[shownPath(set.workTree, file)] = hash;
  }
  Object.assign(fingerprint, fingerprintScripts(set));
  Object.assign(fingerprint, fingerprintBinFolders(set.workTree, set.binFolders ?? [], cache.bins));
  return fingerprint;
}

/** A name at the top of the tree (`jest.config.*`), or a whole folder (`.ci/**`). */
const TOP_NAME = /^[^/*?[\]{}!]*\*?[^/*?[\]{}!]*$/;
const WHOLE_FOLDER = /^([^*?[\]{}!]+)\/\*\*$/;

/**
 * The files the globs match, relative to `cwd`. The default globs' shapes are
 * read directly (a look at the top of the tree, a walk of a few folders); any
 * other glob, and every `!` glob, goes through tinyglobby.
 */
async function listTreeFiles(
  cwd: string,
  globs: readonly string[],
  cache: ProtectedCache,
): Promise<string[]> {
  const include = globs.filter((pattern) => !pattern.startsWith("!"));
  const exclude = globs.filter((pattern) => pattern.startsWith("!")).map((p) => p.slice(1));
  const others = include.filter((p) => !TOP_NAME.test(p) && !WHOLE_FOLDER.test(p));
  const top = listEntries(cwd);
  const files = new Set(
    topFilesMatching(
      top,
      include.filter((p) => TOP_NAME.test(p)).map((p) => topNameMatcher(p, cache.matchers)),
    ),
  );
  const present = new Set(top.filter((entry) => entry.isDirectory()).map((entry) => entry.name));
  for (const pattern of include) {
    const folder = WHOLE_FOLDER.exec(pattern)?.[1];
    if (folder === undefined || !present.has(folder.split("/")[0] ?? "")) continue;
    for (const file of listFolder(path.join(cwd, folder), cache.folders)) {
      files.add(path.relative(cwd, file));
    }
  }
  if (others.length > 0 || exclude.length > 0) {
    const { glob } = await import("tinyglobby");
    for (const file of others.length > 0 ? await glob(others, walkOptions(cwd)) : []) {
      files.add(file);
    }
    for (const file of exclude.length > 0 ? await glob(exclude, walkOptions(cwd)) : []) {
      files.delete(file);
    }
  }
  return [...files];
}

/** The files at the top of the tree whose names match a pattern (`*` within a name). */
function topFilesMatching(entries: readonly Dirent[], matchers: readonly RegExp[]): string[] {
  return entries
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .filter((name) => matchers.some((matcher) => matcher.test(name)));
}

function topNameMatcher(pattern: string, matchers: Map<string, RegExp>): RegExp {
  let matcher = matchers.get(pattern);
  if (matcher === undefined) {
    matcher = new RegExp(`^${pattern.split("*").map(escapeRegExp).join("[^/]*")}$`);
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** The entries of a folder; none when it is missing or unreadable. */
function listEntries(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function walkOptions(cwd: string) {
  return {
    cwd,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: NEVER_WALKED,
    expandDirectories: false,
  };
}

/** Hash of a file's content, or of a symbolic link's target; undefined when it is gone. */
function hashPath(file: string, cache: ProtectedCache, nowMs: number): string | undefined {
  try {
    const stats = lstatSync(file, { bigint: true });
    const known = cache.hashes.get(file);
    if (known !== undefined && known.identity === identityOf(stats)) return known.hash;
    let hash: string | undefined;
    if (stats.isSymbolicLink()) hash = sha256(`symlink:${readlinkSync(file)}`);
    else if (stats.isFile()) hash = sha256(readFileSync(file));
    const identity = settledIdentity(stats, nowMs);
    if (hash === undefined || identity === undefined) cache.hashes.delete(file);
    else cache.hashes.set(file, { identity, hash });
    return hash;
  } catch {
    return undefined;
  }
}

/** `package.json › scripts.test` entries: one per script the checks run. */
function fingerprintScripts(set: ProtectedSet): Record<string, string> {
  const scripts = readScripts(path.join(set.workTree, "package.json"));
  if (scripts === undefined) return {};
  const entries: Record<string, string> = {};
  for (const name of set.packageScripts) {
    const value = scripts[name];
    if (value !== undefined) entries[`package.json › scripts.${name}`] = sha256(String(value));
  }
  return entries;
}

function readScripts(file: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { scripts?: unknown };
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
