/**
 * A decision-file agent finishes a plain `--task` run (docs/completion.md#decision-file):
 * the reviewer loop FAIL → fix → PASS, in the project folder itself, with
 * `git-clean` among the checks. The default decision file is in the run's own
 * folder, so the model's verdict never makes the tree dirty.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { BROKEN_PROJECT, makeTaskAgent } from "../scenarios/support/task-agent.js";
import { cli } from "./support/cli-repo.js";

/**
 * The agent: its first turn only reviews and writes FAIL; its second fixes
 * add(), commits, and writes PASS. A verdict in the legacy text form, as the
 * reviewer writes it, to the path closer gives in CLOSER_DECISION_FILE.
 */
const REVIEWER_PROGRAM = `import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
for await (const _ of process.stdin);
const turnFile = ".git/reviewer-turns";
const turn = existsSync(turnFile) ? Number(readFileSync(turnFile, "utf8")) + 1 : 1;
writeFileSync(turnFile, String(turn));
const decisionFile = process.env.CLOSER_DECISION_FILE;
if (turn === 1) {
  writeFileSync(decisionFile, "review: add() subtracts\\nFAIL\\n");
} else {
  writeFileSync("src/add.js", "export function add(left, right) {\\n  return left + right;\\n}\\n");
  execFileSync("git", ["commit", "--quiet", "--all", "-m", "make add() add"]);
  writeFileSync(decisionFile, "review: the tests pass\\nPASS\\n");
}
console.log("turn " + turn + " done");
`;

describe("a decision-file agent on a plain --task run", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("goes FAIL → fix → PASS and ends completed, the verdict file outside the tree", async () => {
    const agent = makeTaskAgent({
      textOnly: true,
      runner: { backend: { kind: "command", command: ["node", "reviewer.mjs"] } },
    });
    repo = await makeFixtureRepo({
      files: { ...BROKEN_PROJECT, "reviewer.mjs": REVIEWER_PROGRAM },
      agents: [agent],
    });

    const result = await cli(
      "run",
      "tasker",
      "--task",
      "make add() add",
      "--cwd",
      repo.dir,
      "--json",
    );

    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as { runDir: string };
    expect(outcome).toMatchObject({ status: "completed", iterations: 2, refutedDeclarations: 0 });
    const events = (await readFile(join(outcome.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; source?: string; decision?: string });
    const decisions = events.filter((event) => event.type === "decision");
    expect(decisions.map(({ source, decision }) => ({ source, decision }))).toEqual([
      { source: "file-legacy", decision: "incomplete" },
      { source: "file-legacy", decision: "complete" },
    ]);
    // FAIL started no check; PASS started one, and every condition held.
    expect(events.filter((event) => event.type === "validator-start")).toHaveLength(2);
    // The verdict never showed in the tree: git-clean held at the check, and holds now.
    expect((await repo.git("status", "--porcelain")).stdout).toBe("");
  });
});
