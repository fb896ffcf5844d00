import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import { getGitCommonDir, getRepoRoot, isInsideGitRepository } from "../workspace/index.js";

/**
 * A decision file agent.json places in the working tree is added to the
 * repository's `.git/info/exclude`, so the model's declaration never makes
 * the tree dirty and a `git status` check passes (docs/completion.md#decision-file).
 * The default decision file is in the run folder and needs nothing.
 */
export async function keepDecisionFileOutOfGit(agent: ResolvedAgent, cwd: string): Promise<void> {
  const configured = agent.runner.decisionFile;
  if (configured === undefined || !(await isInsideGitRepository(cwd))) return;
  const root = await getRepoRoot(cwd);
  const inRepository = relative(root, resolve(await realpath(cwd), configured));
  if (inRepository === "" || inRepository.startsWith("..") || isAbsolute(inRepository)) return;
  const pattern = `/${inRepository.split(sep).map(escapeGlob).join("/")}`;
  const excludeFile = join(await getGitCommonDir(cwd), "info", "exclude");
  const current = await readFile(excludeFile, "utf8").catch(() => "");
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return;
  await mkdir(dirname(excludeFile), { recursive: true });
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  await writeFile(excludeFile, `${current}${separator}${pattern}\n`);
}

/** A path segment as a gitignore pattern that matches only itself. */
function escapeGlob(segment: string): string {
  return segment.replace(/[*?[\]\\!#]/g, (character) => `\\${character}`);
}
