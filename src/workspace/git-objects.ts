/**
 * closer's git on the object store itself: hashing objects again to find one rewritten in
 * place, and packing the loose ones where the OS sandbox holds them (docs/integrity.md#clean-room,
 * docs/sandbox.md#git).
 */
import { runCommand } from "../process/shell-command.js";
import {
  GIT_TIMEOUT_MS,
  type GitRunOptions,
  gitEnvironment,
  PINNED_CONFIG,
  runGit,
} from "./git.js";
import { repositoryVariables } from "./git-repository.js";

/**
 * What each blob of `ids` hashes to now, in order ("" where it cannot be read): every object is
 * read as git stores it and hashed again, so an object file rewritten in place — git never
 * re-hashes a loose object it reads — shows as an id that differs (docs/integrity.md#git-state).
 * One shell runs the pairs of git commands, so the content never passes through closer as text.
 */
export async function rehashBlobs(
  cwd: string,
  ids: readonly string[],
  options: GitRunOptions = {},
): Promise<string[]> {
  if (ids.length === 0) return [];
  const git = ["git", ...PINNED_CONFIG.flatMap((entry) => ["-c", entry])].join(" ");
  const script = `for id in $OBJECT_IDS; do { ${git} cat-file blob "$id" | ${git} hash-object --no-filters -t blob --stdin; } 2>/dev/null || echo; done`;
  const result = await runCommand({
    command: script,
    cwd,
    env: gitEnvironment({ ...repositoryVariables(options.repository), OBJECT_IDS: ids.join(" ") }),
    inheritEnv: false,
    timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const hashes = result.stdout.split("\n");
  return ids.map((_, index) => (hashes[index] ?? "").trim());
}

/**
 * Packs the repository's loose objects (`git repack -d`: the loose objects reachable from refs,
 * reflogs and the index go into one new pack and leave the loose store), so every object the
 * repository holds is in a pack the OS sandbox holds read-only (docs/sandbox.md#git).
 */
export async function packLooseObjects(cwd: string): Promise<void> {
  await runGit(cwd, ["repack", "-d", "-q"], { timeoutMs: 600_000 });
}
