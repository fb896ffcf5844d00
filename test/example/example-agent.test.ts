import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { type FakeClaude, makeFakeClaude } from "../doubles/fake-claude/make-fake-claude.js";
import { copyExampleRepo, readDemoSession } from "./example-repo.js";

/**
 * The bundled example agent, run through `closer run` and the real Claude
 * Agent SDK against the fake Claude Code executable: the model's two answers
 * are the recorded demo session, played as real tool uses (Write, Bash).
 */
describe("the example agent through closer run and the Claude Agent SDK", () => {
  let repo: { dir: string; cleanup(): Promise<void> } | undefined;
  let claude: FakeClaude | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    await claude?.cleanup();
  });

  it("declared done → test fails → retry naming the test → verified done, in two iterations", async () => {
    repo = await copyExampleRepo(["FAKE_CLAUDE_*"]);
    claude = await makeFakeClaude();
    const recorded = await readDemoSession();
    await claude.script(
      recorded.map((turn) => ({
        actions: [
          ...Object.entries(turn.files).map(([file, content]) => ({
            tool: "Write",
            input: { file_path: join(repo?.dir ?? "", file), content },
          })),
          ...turn.commands.map((command) => ({ tool: "Bash", input: { command } })),
        ],
        structuredOutput: turn.structuredOutput,
        costUsd: 0.02,
      })),
    );
    vi.stubEnv("CLOSER_CLAUDE_PATH", claude.executablePath);
    for (const [name, value] of Object.entries(claude.env)) vi.stubEnv(name, value);

    const result = await cli(
      "run",
      "example",
      "--task-file",
      join(repo.dir, "TASK.md"),
      "--cwd",
      repo.dir,
      "--no-worktree",
      "--json",
    );

    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const outcome = JSON.parse(lines[0] ?? "{}");
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    expect(outcome.costUsd).toBeCloseTo(0.04);

    const runDir: string = outcome.runDir;
    const retryPrompt = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8");
    expect(retryPrompt).toContain("# The tests fail");
    expect(retryPrompt).toContain("- collapses runs of spaces and trims the ends");
    const runState = JSON.parse(await readFile(join(runDir, "run.json"), "utf8"));
    expect(runState).toMatchObject({ status: "completed", iteration: 2 });
    const events = (await readFile(join(runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const checks = events
      .filter((event) => event.type === "validator-end")
      .map((event) => `${event.validator}:${event.valid}`);
    expect(checks).toEqual([
      "git-clean:true",
      "tests-pass:false",
      "git-clean:true",
      "tests-pass:true",
    ]);

    const invocations = await claude.invocations();
    expect(invocations.length).toBeGreaterThanOrEqual(2);
    const [first, second] = invocations;
    expect(first?.options.resume).toBeUndefined();
    expect(second?.options.resume).toBe(first?.turns[0]?.sessionId);
    expect(second?.prompts.join("\n")).toContain("collapses runs of spaces and trims the ends");
  });
});
