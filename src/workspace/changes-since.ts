/**
 * What changed in a working tree since a commit, uncommitted and untracked
 * files included (docs/completion.md#closure-review).
 */
import type { FileChange, TreeChanges } from "../ports/files.js";
import { isInsideGitRepository, readGit, runGit } from "./git.js";

const NO_CHANGES: TreeChanges = { stat: "", files: [] };

/** Quoting off, so paths read as written. */
const PLAIN_PATHS = ["-c", "core.quotePath=false"];

/** The commit HEAD names, or "" outside git or before the first commit. */
export async function readHeadCommit(cwd: string): Promise<string> {
  try {
    // One git process: `true` or `false` on the first line, HEAD's commit on the next when there is one.
    const answer = await runGit(
      cwd,
      ["rev-parse", "--is-inside-work-tree", "--verify", "--quiet", "HEAD"],
      { allowFailure: true },
    );
    const [inside, head] = answer.stdout.split("\n");
    return answer.exitCode === 0 && inside === "true" ? (head ?? "").trim() : "";
  } catch {
    return "";
  }
}

/**
 * The tracked changes since `commit` (`git diff <commit>`: committed, staged
 * and unstaged alike) and the untracked files that are not ignored, each as
 * a diff from nothing. Nothing outside git or without a commit.
 */
export async function readChangesSince(cwd: string, commit: string): Promise<TreeChanges> {
  if (commit === "" || !(await isInsideGitRepository(cwd))) return NO_CHANGES;
  const root = await readGit(cwd, ["rev-parse", "--show-toplevel"]);
  const tracked = await readGit(root, [...PLAIN_PATHS, "diff", "--no-renames", commit]);
  const trackedStat = await readGit(root, [...PLAIN_PATHS, "diff", "--stat", commit]);
  const untracked = (await readGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter((file) => file !== "");
  const untrackedFiles: FileChange[] = [];
  for (const file of untracked) {
    untrackedFiles.push({ path: file, diff: await diffFromNothing(root, file) });
  }
  const stat = [trackedStat, ...untracked.map((file) => ` ${file} (untracked)`)].filter(
    (part) => part !== "",
  );
  return { stat: stat.join("\n"), files: [...splitDiff(tracked), ...untrackedFiles] };
}

async function diffFromNothing(root: string, file: string): Promise<string> {
  const result = await runGit(
    root,
    [...PLAIN_PATHS, "diff", "--no-index", "--", "/dev/null", file],
    {
      allowFailure: true,
    },
  );
  return result.stdout.replace(/\n$/, "");
}

/** Splits a `git diff --no-renames` into one part per file. */
export function splitDiff(diff: string): FileChange[] {
  const files: FileChange[] = [];
  for (const part of diff.split(/^(?=diff --git )/m)) {
    if (!part.startsWith("diff --git ")) continue;
    const header = part.slice(
      "diff --git ".length,
      part.indexOf("\n") === -1 ? undefined : part.indexOf("\n"),
    );
    files.push({ path: pathOfHeader(header), diff: part.replace(/\n$/, "") });
  }
  return files;
}

/** `a/<path> b/<path>` names the same path twice when renames are off. */
function pathOfHeader(header: string): string {
  const length = (header.length - 5) / 2;
  if (Number.isInteger(length) && length > 0) return header.slice(2, 2 + length);
  return header.replace(/^a\//, "").split(" b/")[0] ?? header;
}
