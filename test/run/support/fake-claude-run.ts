import { loadAgent } from "../../../src/definition/load-agent.js";
import { type FixtureRepo, makeTestClock } from "../../../src/testing/index.js";
import type { FakeClaude } from "../../doubles/fake-claude/make-fake-claude.js";

/** The written task of the runs through the fake Claude Code. */
export const ZETA_TASK = {
  kind: "text",
  title: "Add zeta",
  body: "Add zeta.txt and commit it.",
} as const;

/**
 * Options of a `runTask` of the `fixer` agent in `repo` on a test clock, with
 * closer's environment plus `env` (where the fakes are found).
 */
export async function fixerRunOptions(repo: FixtureRepo, env: Readonly<Record<string, string>>) {
  const clock = makeTestClock();
  const options = {
    agent: await loadAgent("fixer", { cwd: repo.dir }),
    cwd: repo.dir,
    task: ZETA_TASK,
    clock,
    env: { ...process.env, ...env },
  };
  return { clock, options };
}

/** The same, with the fake Claude Code as the executable the SDK starts (CLOSER_CLAUDE_PATH). */
export function fakeClaudeRunOptions(repo: FixtureRepo, claude: FakeClaude) {
  return fixerRunOptions(repo, { CLOSER_CLAUDE_PATH: claude.executablePath, ...claude.env });
}
