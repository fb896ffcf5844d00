/**
 * The floor of the 20-iteration run (loop20.mjs, docs/performance.md#floor): a bare Node
 * process that starts, one after another, the processes that run must start — the model's line
 * with the prompt on stdin and the check, as before — and those a guarantee of closer needs, the
 * same git commands in the same places: the clean room rebuilt from the work before each phase
 * of checks, and the check run in it (docs/integrity.md#clean-room); one `git status` as a
 * declaration's checks start, and again as the accepted one's end, with the room's listing
 * (docs/integrity.md#one-commit); before the first query, what the run's place and the baseline
 * need. The processes it started, by kind, go as JSON where BENCH_SPAWN_FILE says.
 * Usage: node loop20-floor.mjs <dir> <prompt file> <model line> <check line> <iterations>
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { kindOf } from "./process-kind.mjs";

const [dir = "", promptFile = "", modelLine = "", checkLine = "", iterations = "0"] =
  process.argv.slice(2);

/**
 * closer's settings for every git command, and those its reads of the work add: written out
 * here, not imported, so the floor loads nothing of closer (src/workspace/git.ts PINNED_CONFIG,
 * src/workspace/tree-fingerprint.ts FINGERPRINT_STATUS).
 */
const PINNED = ["core.fsmonitor=false", "core.pager=cat", "core.hooksPath=/dev/null"];
const READ = ["core.trustctime=true", "core.checkStat=default", "core.untrackedCache=false"];
const GIT_ENV = { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", GIT_NO_REPLACE_OBJECTS: "1" };
const STATUS = [
  "status",
  "--porcelain=v2",
  "-z",
  "--branch",
  "--no-ahead-behind",
  "--untracked-files=all",
  "--ignore-submodules=none",
];

/** @type {Record<string, number>} */
const counts = {};

/**
 * Runs a process to its end; its stdout.
 * @param {string} file
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, stdin?: number, input?: string }} [options]
 * @returns {Promise<string>}
 */
function run(file, args, options = {}) {
  const kind = kindOf(file, args);
  counts[kind] = (counts[kind] ?? 0) + 1;
  return new Promise((resolve, reject) => {
    const stdin = options.input === undefined ? (options.stdin ?? "ignore") : "pipe";
    const child = spawn(file, args, {
      cwd: options.cwd ?? dir,
      env: { ...process.env, ...options.env },
      stdio: [stdin, "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.resume();
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.on("error", reject);
    child.on("close", () => resolve(out));
  });
}

/**
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, input?: string, read?: boolean }} [options]
 */
function git(args, options = {}) {
  const config = [...PINNED, ...(options.read ? READ : [])].flatMap((entry) => ["-c", entry]);
  return run("git", [...config, ...args], { ...options, env: { ...GIT_ENV, ...options.env } });
}

const work = { GIT_DIR: join(dir, ".git"), GIT_COMMON_DIR: join(dir, ".git"), GIT_WORK_TREE: dir };

/** The clean room of the run, as closer opens it (src/workspace/checks-room.ts). */
function openRoom() {
  const place = mkdtempSync(join(tmpdir(), "w-"));
  const tree = join(place, basename(dir) || "work");
  const gitDir = join(place, ".git-dir");
  mkdirSync(tree);
  mkdirSync(gitDir);
  mkdirSync(join(place, ".index"));
  const roomGit = { GIT_DIR: gitDir, GIT_COMMON_DIR: join(dir, ".git"), GIT_WORK_TREE: tree };
  const workIndex = { ...work, GIT_INDEX_FILE: join(place, ".index", "work") };
  const roomIndex = { ...roomGit, GIT_INDEX_FILE: join(place, ".index", "room") };
  const listing = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"];
  return {
    place,
    tree,
    /**
     * The room made to hold the work as git sees it now, on the commit HEAD named as the checks
     * started.
     * @param {string} commit
     */
    async rebuild(commit) {
      if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`no commit to check: "${commit}"`);
      if (!existsSync(workIndex.GIT_INDEX_FILE))
        await git(["read-tree", "HEAD"], { env: workIndex, read: true });
      await git(["add", "--all", "--", ":/"], { env: workIndex, read: true });
      const snapshot = await git(["write-tree"], { env: workIndex, read: true });
      await Promise.all([
        writeFile(join(tree, ".git"), `gitdir: ${gitDir}\n`),
        writeFile(join(gitDir, "HEAD"), `${commit}\n`),
        writeFile(join(gitDir, "commondir"), `${join(dir, ".git")}\n`),
        writeFile(join(gitDir, "gitdir"), `${join(tree, ".git")}\n`),
      ]);
      const inRoom = { cwd: tree, env: roomIndex, read: true };
      await git(["read-tree", "--reset", "-u", snapshot.trim()], inRoom);
      await git(["clean", "-ffdxq"], inRoom);
      const staged = await git(["ls-files", "--stage", "-z"], inRoom);
      const paths = staged
        .split("\0")
        .filter((entry) => entry !== "")
        .map((entry) => entry.slice(entry.indexOf("\t") + 1));
      await git(["hash-object", "--stdin-paths"], { ...inRoom, input: `${paths.join("\n")}\n` });
      copyFileSync(roomIndex.GIT_INDEX_FILE, join(gitDir, "index"));
      await git(["read-tree", "-m", commit], { cwd: tree, env: roomGit, read: true });
      await git(listing, inRoom);
    },
    /** The room's listing again, after the checks: what they wrote. */
    readWrites: () => git(listing, { cwd: tree, env: roomIndex, read: true }),
  };
}

// Before the first query: where the run is in git (its place), the repository pinned for the
// git-state guard, where the hooks are, the main worktree (closer's folders the room leaves
// out), the room opened with the tree's ignored entries, the baseline's reads of the untouched
// tree (files dirty at start, HEAD), then the room made and the baseline's check run in it.
await git(["rev-parse", "--git-common-dir", "--is-inside-work-tree"]);
await git(["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"]);
await git(["config", "--path", "--get", "core.hooksPath"]);
await git(["worktree", "list", "--porcelain"]);
await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], {
  env: work,
  read: true,
});
const [, inside] = await Promise.all([
  git(["status", "--porcelain", "-z", "--untracked-files=all"], { env: work }),
  git(["rev-parse", "--is-inside-work-tree", "--verify", "--quiet", "HEAD"], { env: work }),
]);
const room = openRoom();
try {
  await room.rebuild(inside.trim().split("\n").at(-1) ?? "");
  await run("/bin/sh", ["-c", checkLine], { cwd: room.tree });
  for (let iteration = 1; iteration <= Number(iterations); iteration += 1) {
    const prompt = openSync(promptFile, "r");
    await run("bash", ["-c", modelLine], { stdin: prompt });
    closeSync(prompt);
    const status = await git(STATUS, { env: work }); // HEAD and the tree the checks start on
    await room.rebuild(/# branch\.oid ([0-9a-f]+)/.exec(status)?.[1] ?? "");
    await run("/bin/sh", ["-c", checkLine], { cwd: room.tree });
    if (iteration === Number(iterations)) {
      await git(STATUS, { env: work }); // the accepted work did not move
      await room.readWrites();
    }
  }
} finally {
  rmSync(room.place, { recursive: true, force: true });
}
if (process.env.BENCH_SPAWN_FILE !== undefined) {
  writeFileSync(process.env.BENCH_SPAWN_FILE, JSON.stringify(counts));
}
