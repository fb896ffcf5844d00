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
 * Options of a `runTask` of the `fixer` agent in `repo`, whose Claude Code is
 * the fake (through CLOSER_CLAUDE_PATH), on a test clock.
 */
export async function fakeClaudeRunOptions(repo: FixtureRepo, claude: FakeClaude) {
  const clock = makeTestClock();
  const options = {
    agent: await loadAgent("fixer", { cwd: repo.dir }),
    cwd: repo.dir,
    task: ZETA_TASK,
    clock,
    env: { ...process.env, CLOSER_CLAUDE_PATH: claude.executablePath, ...claude.env },
  };
  return { clock, options };
}
