import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";

/**
 * Where run folders go by default: `<git common dir>/closer/runs` when `cwd`
 * is inside a git repository (so `git status` never sees the record, and the
 * runs of every worktree land in one place), else `<cwd>/.closer/runs`.
 * Reads `.git` itself (a folder, or a `gitdir:` file plus `commondir` in a
 * worktree) instead of spawning git.
 */
export function defaultRunsDir(cwd: string): string {
  const commonDir = findGitCommonDir(resolve(cwd));
  return commonDir ? join(commonDir, "closer", "runs") : join(resolve(cwd), ".closer", "runs");
}

/**
 * The runs folder of the project in `cwd` (docs/record.md#runs-dir): the one given
 * (`--runs-dir`, a library option), else the agent's `runner.logging.runsDir`, else
 * `defaultRunsDir`; a relative one is relative to `cwd`. The one place this default is written.
 */
export function resolveRunsDir(
  cwd: string,
  configured: { readonly given?: string | undefined; readonly agent?: ResolvedAgent | undefined },
): string {
  const chosen = configured.given ?? configured.agent?.runner.logging.runsDir;
  return chosen === undefined ? defaultRunsDir(cwd) : resolve(cwd, chosen);
}

/** The shared git folder of the repository holding `start`, or undefined outside git. */
function findGitCommonDir(start: string): string | undefined {
  let folder = start;
  for (;;) {
    const found = readDotGit(join(folder, ".git"));
    if (found) return found;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function readDotGit(dotGit: string): string | undefined {
  const kind = statKind(dotGit);
  if (kind === "dir") return dotGit;
  if (kind !== "file") return undefined;
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
  if (!match?.[1]) return undefined;
  const gitDir = absoluteFrom(dirname(dotGit), match[1].trim());
  const commonDir = readOptionalLine(join(gitDir, "commondir"));
  return commonDir ? absoluteFrom(gitDir, commonDir) : gitDir;
}

function statKind(path: string): "dir" | "file" | undefined {
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) return "dir";
    return stats.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

function readOptionalLine(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

function absoluteFrom(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
