import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { copyExampleRepo, readDemoSession } from "./example-repo.js";

/**
 * The example agent that declares through the JSON decision file
 * (examples/example-repo/.agent/decider/, docs/completion.md#legacy-decision-file): it validates
 * as written, and its `command` backend contract completes a run when the program answers in
 * prose and writes `{decision, check_id}` to `CLOSER_DECISION_FILE`.
 */
describe("the decider example agent", () => {
  let repo: { dir: string; cleanup(): Promise<void> } | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("passes closer validate as written", async () => {
    repo = await copyExampleRepo();
    const result = await cli("validate", "decider", "--cwd", repo.dir);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain("warning");
  });

  it("completes in one iteration when its program fixes the code, answers in prose and writes the decision file", async () => {
    repo = await copyExampleRepo();
    const fixed = (await readDemoSession()).flatMap((turn) => Object.entries(turn.files));
    // The agent CLI's stand-in: the demo session's final files, a commit, prose and the decision.
    const program = `import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
let prompt = ""; for await (const chunk of process.stdin) prompt += chunk;
for (const [file, content] of ${JSON.stringify(fixed)}) writeFileSync(file, content);
execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "Fix slugify"]);
writeFileSync(process.env.CLOSER_DECISION_FILE, JSON.stringify({ decision: "complete", check_id: process.env.CLOSER_CHECK_ID, reasons: ["npm test passes"] }));
console.log("Fixed slugify; the decision is in the file.");
`;
    const programPath = join(repo.dir, ".git", "agent-cli.mjs");
    await writeFile(programPath, program);
    const agentFile = join(repo.dir, ".agent/decider/agent.json");
    const agent = JSON.parse(await readFile(agentFile, "utf8"));
    agent.runner.backend.command = ["node", programPath];
    await writeFile(agentFile, `${JSON.stringify(agent, null, 2)}\n`);
    const result = await cli(
      "run",
      "decider",
      "--task-file",
      join(repo.dir, "TASK.md"),
      "--cwd",
      repo.dir,
      "--no-worktree",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const prompt = await readFile(join(outcome.runDir, "prompts/iteration-001.md"), "utf8");
    expect(prompt).toContain("CLOSER_DECISION_FILE");
    expect(prompt).toMatch(/check's id \(`check-[0-9a-f]+`/);
    const events = (await readFile(join(outcome.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === "decision")).toEqual([
      expect.objectContaining({ source: "file-json", decision: "complete", checkIdMatch: true }),
    ]);
    expect(
      events
        .filter((event) => event.type === "validator-end")
        .map((event) => `${event.validator}:${event.valid}`),
    ).toEqual(["git-clean:true", "tests-pass:true"]);
  });
});
