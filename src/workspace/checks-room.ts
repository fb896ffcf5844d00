/**
 * The clean room the checks of a run judge the work in (docs/integrity.md#clean-room): a
 * checkout, made by closer's own git, of the work tree as git sees it — the commit, with the
 * uncommitted changes and the untracked files git shows — plus the ignored entries the tree
 * held when the room was opened (dependency folders and the like), linked in. Files the model
 * added that git does not show (ignored, hidden behind index flags) are not in it, and what a
 * check writes there is seen and named.
 */
import { copyFile, lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import type { ChecksRoomPort, FixedWork, RoomView, WorkToCheck } from "../ports/loop-ports.js";
import { type GitRunOptions, readGit, runGit } from "./git.js";
import type { GitRepository } from "./git-repository.js";
import { changedEntries, readRoomListing } from "./room-listing.js";

/** Settings closer's git reads the work with, whatever the repository says: every stat field counts. */
const READ_CONFIG = ["core.trustctime=true", "core.checkStat=default", "core.untrackedCache=false"];

/** A run's clean room, made once and rebuilt for every phase of checks. */
export interface ChecksRoom extends ChecksRoomPort {
  /** The folders the checks' processes may write: the room's tree and its git dir (absolute). */
  readonly writable: readonly string[];
  /** Removes the room. */
  remove(): Promise<void>;
}

export interface ChecksRoomOptions {
  /** The run's repository, named to git (docs/integrity.md#git-state). */
  readonly repository: GitRepository;
  /** The folder the run's checks run in, inside the repository's working tree (absolute). */
  readonly cwd: string;
  /** Ignored entries to link into the room (a resumed run's, as its baseline kept them). */
  readonly kept?: readonly string[];
  /** Ignored entries never linked in: closer's own folders inside the tree (absolute). */
  readonly skipped?: readonly string[];
}

/**
 * Opens the run's room in a new folder of the system's temporary folder. Its names say nothing
 * of closer: the tree is a folder named like the repository's, its git dir sits beside it.
 */
export async function openChecksRoom(options: ChecksRoomOptions): Promise<ChecksRoom> {
  const { repository } = options;
  const place = await mkdtemp(join(tmpdir(), "w-"));
  const tree = join(place, basename(repository.workTree) || "work");
  const gitDir = join(place, ".git-dir");
  // closer's own index files, outside what the checks may write.
  const own = join(place, ".index");
  await Promise.all([mkdir(tree), mkdir(gitDir), mkdir(own)]);
  const kept = options.kept ?? (await listIgnoredEntries(repository, options.skipped ?? []));
  const paths = {
    tree,
    gitDir,
    workIndex: join(own, "work"),
    roomIndex: join(own, "room"),
    cwd: join(tree, relative(repository.workTree, options.cwd)),
  };
  return {
    writable: [tree, gitDir],
    kept,
    rebuild: (signal, work) => rebuildRoom({ repository, kept, ...paths }, { signal, work }),
    remove: () => rm(place, { recursive: true, force: true }),
  };
}

/**
 * The ignored entries of the working tree, as `git status` folds them (a folder whose files are
 * all ignored is one entry), without those under `skipped`.
 */
async function listIgnoredEntries(
  repository: GitRepository,
  skipped: readonly string[],
): Promise<string[]> {
  const listing = await readGit(
    repository.workTree,
    ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
    { repository, config: READ_CONFIG },
  );
  const skippedPaths = skipped.map((folder) => relative(repository.workTree, folder));
  return listing
    .split("\0")
    .map((entry) => entry.replace(/\/$/, ""))
    .filter((entry) => entry !== "" && !skippedPaths.some((folder) => isUnder(entry, folder)));
}

function isUnder(entry: string, folder: string): boolean {
  if (folder === "" || folder.startsWith("..")) return false;
  return entry === folder || entry.startsWith(`${folder}/`) || folder.startsWith(`${entry}/`);
}

interface RoomPaths {
  readonly repository: GitRepository;
  readonly kept: readonly string[];
  readonly tree: string;
  readonly gitDir: string;
  readonly workIndex: string;
  readonly roomIndex: string;
  readonly cwd: string;
}

/**
 * Fills the room from the work: its tree object written now, or the one given (`work`, written
 * before), on the commit given (or HEAD's, read now). Nothing of the work tree is read after
 * that tree is written but the kept entries.
 */
async function rebuildRoom(
  paths: RoomPaths,
  {
    signal,
    work,
  }: { readonly signal?: AbortSignal | undefined; readonly work?: WorkToCheck | undefined },
): Promise<RoomView> {
  const { repository, tree, gitDir } = paths;
  const run = (options: GitRunOptions) => ({
    config: READ_CONFIG,
    ...(signal === undefined ? {} : { signal }),
    ...options,
  });
  const { tree: snapshot, commit } = await fixWork(paths, run({ repository }), work);
  await removeKept(paths);
  await writeGitFiles(paths, commit);
  const room: GitRepository = { gitDir, commonDir: repository.commonDir, workTree: tree };
  const ownIndex = run({ repository: room, env: { GIT_INDEX_FILE: paths.roomIndex } });
  await runGit(tree, ["read-tree", "--reset", "-u", snapshot], ownIndex);
  // Three reads of what git just wrote, each of its own files: the untracked ones removed, the
  // tracked ones hashed, the room's own index written (docs/performance.md#loop-costs).
  await allEnded([
    runGit(tree, ["clean", "-ffdxq"], ownIndex).then(() => linkKept(paths)),
    verifyCheckout(tree, ownIndex),
    writeRoomIndex(paths, commit, run({ repository: room })),
  ]);
  const before = await readRoomListing(paths, ownIndex);
  return {
    cwd: paths.cwd,
    tree: snapshot,
    readWrites: async () => changedEntries(before, await readRoomListing(paths, ownIndex)),
  };
}

/**
 * The room's index is the commit's, so `git status` there shows the work's changes as the work
 * tree's does; the stat of the files closer just wrote is kept where they match it.
 */
async function writeRoomIndex(
  paths: RoomPaths,
  commit: string,
  options: GitRunOptions,
): Promise<void> {
  await copyFile(paths.roomIndex, join(paths.gitDir, "index"));
  await runGit(paths.tree, ["read-tree", "-m", commit], options);
}

/** The work tree as a tree object of closer's (unless given), and the commit (HEAD's unless given). */
async function fixWork(
  paths: RoomPaths,
  options: GitRunOptions,
  work: WorkToCheck | undefined,
): Promise<FixedWork> {
  const { repository } = paths;
  const [tree, commit] = await Promise.all([
    work?.tree ?? snapshotWork(paths, options),
    work?.commit ??
      readGit(repository.workTree, ["rev-parse", "--verify", "HEAD^{commit}"], options),
  ]);
  return { tree, commit };
}

/**
 * The work tree as git sees it, as a tree object: the commit, with every tracked file as it is
 * now and every untracked file git does not ignore. closer's own index is used, so index flags
 * the model set (assume-unchanged, skip-worktree) hide nothing and its entries cannot be forged.
 */
async function snapshotWork(paths: RoomPaths, options: GitRunOptions): Promise<string> {
  const { repository, workIndex } = paths;
  const own = { ...options, env: { ...options.env, GIT_INDEX_FILE: workIndex } };
  if (!(await exists(workIndex))) await runGit(repository.workTree, ["read-tree", "HEAD"], own);
  await runGit(repository.workTree, ["add", "--all", "--", ":/"], own);
  return readGit(repository.workTree, ["write-tree"], own);
}

/**
 * The room's files hash to the ids closer's index holds for them: what git wrote came from
 * objects that still hold what their ids name. An object file rewritten in place (git never
 * re-hashes a loose object it reads) would otherwise put other content in the room than the
 * work that is judged and delivered; the room is then not made, naming the files.
 */
async function verifyCheckout(tree: string, options: GitRunOptions): Promise<void> {
  const staged = await readGit(tree, ["ls-files", "--stage", "-z"], options);
  const files: { readonly id: string; readonly path: string }[] = [];
  for (const entry of staged.split("\0")) {
    const match = /^(100644|100755) ([0-9a-f]+) 0\t(.*)$/s.exec(entry);
    if (match?.[2] !== undefined && match[3] !== undefined)
      files.push({ id: match[2], path: match[3] });
  }
  if (files.length === 0) return;
  const unnamable = files.filter((file) => file.path.includes("\n")).map((file) => file.path);
  if (unnamable.length > 0) {
    throw new Error(
      `a file name holds a line break, which closer cannot check: ${JSON.stringify(unnamable[0])}`,
    );
  }
  const hashed = await readGit(tree, ["hash-object", "--stdin-paths"], {
    ...options,
    input: `${files.map((file) => file.path).join("\n")}\n`,
  });
  const ids = hashed.split("\n");
  const rewritten = files.filter((file, index) => ids[index] !== file.id).map((file) => file.path);
  if (rewritten.length > 0) {
    const shown = rewritten.slice(0, 10).join(", ");
    throw new Error(`objects of the repository no longer hold what their ids name: ${shown}`);
  }
}

/** The room's git dir: a worktree's, whose HEAD is the commit and whose objects are the repository's. */
async function writeGitFiles(paths: RoomPaths, commit: string): Promise<void> {
  const { tree, gitDir, repository } = paths;
  await Promise.all([
    writeFile(join(tree, ".git"), `gitdir: ${gitDir}\n`),
    writeFile(join(gitDir, "HEAD"), `${commit}\n`),
    writeFile(join(gitDir, "commondir"), `${repository.commonDir}\n`),
    writeFile(join(gitDir, "gitdir"), `${join(tree, ".git")}\n`),
  ]);
}

/**
 * Removes the kept entries from the room before git writes it (so git never writes through a
 * link), with whatever a check added among them. Links are removed, never followed.
 */
async function removeKept(paths: RoomPaths): Promise<void> {
  for (const entry of paths.kept)
    await rm(join(paths.tree, entry), { recursive: true, force: true });
}

/**
 * Puts each kept entry of the work tree into the room, where the room has nothing there: a file
 * as a link to it, a folder as a folder of links to what it holds, so a folder that git ignores
 * only as a folder (`node_modules/`) is still ignored in the room.
 */
async function linkKept(paths: RoomPaths): Promise<void> {
  for (const entry of paths.kept) {
    const link = join(paths.tree, entry);
    const source = join(paths.repository.workTree, entry);
    const parent = await lstat(dirname(link)).catch(() => undefined);
    const kind = await lstat(source).catch(() => undefined);
    if (parent?.isDirectory() !== true || kind === undefined || (await exists(link))) continue;
    if (!kind.isDirectory()) {
      await symlink(source, link);
      continue;
    }
    await mkdir(link);
    for (const name of await readdir(source)) await symlink(join(source, name), join(link, name));
  }
}

/**
 * Waits for every one of `works` to end, then throws the first one's error: a failed one never
 * leaves the others writing the room while it is rebuilt again.
 */
async function allEnded(works: readonly Promise<unknown>[]): Promise<void> {
  for (const ended of await Promise.allSettled(works))
    if (ended.status === "rejected") throw ended.reason;
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
