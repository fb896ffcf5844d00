import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { runGit } from "../workspace/index.js";
import type { JobRepository } from "./job-data.js";

/** Where a worker keeps its clone of a repository: `<repo dir>/<owner>/<name>`. */
export function clonePath(repoDir: string, repository: JobRepository): string {
  return join(repoDir, safeSegment(repository.owner), safeSegment(repository.name));
}

function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^\.+/, "-");
}

/**
 * The worker's clone of the job's repository, made on first use and fetched
 * after that (its current branch fast-forwarded when it can be). A clone is
 * made beside its place and renamed into it, so two workers sharing a repo
 * dir never see half a clone. Returns the clone's path and any warning.
 */
export async function prepareClone(
  repoDir: string,
  repository: JobRepository,
): Promise<{ path: string; warnings: string[] }> {
  const path = clonePath(repoDir, repository);
  if (existsSync(join(path, ".git"))) return { path, warnings: await refresh(path) };
  await mkdir(join(path, ".."), { recursive: true });
  const staging = `${path}.cloning-${randomUUID().slice(0, 8)}`;
  try {
    await runGit(repoDir, ["clone", "--quiet", repository.cloneUrl, staging], {
      timeoutMs: 600_000,
    });
    await rename(staging, path).catch(async (error: NodeJS.ErrnoException) => {
      // Another worker's clone got there first: use it.
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { path, warnings: [] };
}

async function refresh(path: string): Promise<string[]> {
  const fetched = await runGit(path, ["fetch", "--quiet", "origin"], {
    allowFailure: true,
    timeoutMs: 300_000,
  });
  if (fetched.exitCode !== 0) {
    return [`git fetch in ${path} failed; the run starts from the clone as it is`];
  }
  const merged = await runGit(path, ["merge", "--ff-only", "--quiet", "@{upstream}"], {
    allowFailure: true,
  });
  return merged.exitCode === 0
    ? []
    : [
        `${path} could not be fast-forwarded to its upstream; the run starts from the clone as it is`,
      ];
}
