/**
 * A bare upstream in a temp folder and a clone of it whose `origin` it is,
 * with `main` holding one commit on both: the setup of the delivery tests
 * (docs/queue.md#delivery).
 */
import { execFile } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs git in `cwd` with a fixed identity; returns its trimmed stdout, throws when it fails. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
  };
  return (await run("git", args, { cwd, env })).stdout.trim();
}

/** Writes `file` (its own name as content), commits it, and returns the new HEAD. */
export async function commit(cwd: string, file: string): Promise<string> {
  await writeFile(join(cwd, file), `${file}\n`);
  await git(cwd, "add", file);
  await git(cwd, "commit", "--quiet", "-m", file);
  return git(cwd, "rev-parse", "HEAD");
}

export interface UpstreamClone {
  /** The bare repository. */
  readonly upstream: string;
  /** The working clone, on `main`. */
  readonly clone: string;
  cleanup(): Promise<void>;
}

/** Makes the pair in a fresh temp folder named from `prefix`. */
export async function makeUpstreamClone(prefix: string): Promise<UpstreamClone> {
  const scratch = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const upstream = join(scratch, "upstream.git");
  const clone = join(scratch, "clone");
  await git(scratch, "init", "--quiet", "--bare", "--initial-branch=main", upstream);
  await git(scratch, "clone", "--quiet", upstream, clone);
  await git(clone, "checkout", "--quiet", "-b", "main");
  await commit(clone, "base.txt");
  await git(clone, "push", "--quiet", "origin", "main");
  return { upstream, clone, cleanup: () => rm(scratch, { recursive: true, force: true }) };
}
