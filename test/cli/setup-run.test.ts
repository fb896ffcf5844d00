import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo, writeAgent } from "../../src/testing/index.js";
import { startCloser } from "../faults/support/closer-process.js";
import { makeIssueAgent } from "../run/support/issue-repo.js";
import { readRecordedEvents } from "../run/support/recorded-events.js";
import { cli } from "./support/cli-repo.js";

/** The model's stand-in: writes work.txt and declares the work complete (closer commits it). */
const AGENT_PROGRAM = `import { writeFileSync } from "node:fs";
for await (const chunk of process.stdin) void chunk;
writeFileSync("work.txt", "done\\n");
console.log(JSON.stringify({
  status: "completed",
  summary: "work written",
  next_action: { action: "complete", reason: "done" },
}));
`;

const MAKE_WIDGET =
  "mkdir -p node_modules/widget && echo 'module.exports=1' > node_modules/widget/index.js";

/** A project whose check needs node_modules/widget, which only the setup makes (it is ignored). */
async function makeSetupRepo(setup: readonly string[]): Promise<FixtureRepo> {
  const repo = await makeFixtureRepo({
    files: { "README.md": "# widgets\n", ".gitignore": "node_modules/\n.closer/\n" },
  });
  const program = join(repo.dir, "agent-program.mjs");
  await writeFile(program, AGENT_PROGRAM);
  await writeAgent(
    repo.dir,
    makeIssueAgent({
      runner: {
        backend: { kind: "command", command: ["node", program] },
        setup,
        maxIterations: 3,
        worktree: { enabled: true, autoCommit: true },
      },
      conditions: ["check-passes"],
      parameters: {},
      initialPrompt: "# {{task.title}}\n",
      textOnly: true,
      validators: {
        "check-passes": {
          type: "command",
          command: `node -e "require('widget')"`,
          successWhen: "exitCode:0",
          failurePattern: "check-failed",
          extractParams: { errorOutput: "stderr" },
        },
      },
    }),
  );
  await repo.commitAll("project and agent");
  return repo;
}

/** `closer run fixer --task … --json` as its own process. */
async function runCloser(repo: FixtureRepo, ...flags: string[]) {
  const closer = startCloser(
    ["run", "fixer", "--task", "write work.txt", "--cwd", repo.dir, "--json", ...flags],
    { cwd: repo.dir },
  );
  const { code } = await closer.exited;
  const line = closer.stdout().trim().split("\n").at(-1) ?? "{}";
  if (!line.startsWith("{")) throw new Error(`closer exited ${code}: ${closer.stderr()}`);
  return { code, stderr: closer.stderr(), result: JSON.parse(line) as Record<string, unknown> };
}

let repo: FixtureRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

describe("runner.setup", () => {
  for (const where of ["a worktree", "the project folder"] as const) {
    it(`makes ${where} ready before the baseline: the check passes in 1 iteration`, {
      timeout: 60_000,
    }, async () => {
      repo = await makeSetupRepo([MAKE_WIDGET]);
      const run = await runCloser(repo, ...(where === "a worktree" ? [] : ["--no-worktree"]));
      expect(run.code, run.stderr).toBe(0);
      expect(run.result).toMatchObject({ status: "completed", iterations: 1 });
      expect(run.stderr).toMatch(/setup mkdir -p node_modules\/widget.* ✓/);
      const events = await readRecordedEvents(String(run.result.runDir));
      const setup = events.filter((event) => event.type === "setup");
      expect(setup).toEqual([
        expect.objectContaining({ type: "setup", command: MAKE_WIDGET, exitCode: 0 }),
      ]);
      // The setup ran in the tree the run worked in, not in the project folder beside it.
      const inProject = await readFile(join(repo.dir, "node_modules/widget/index.js"), "utf8")
        .then(() => true)
        .catch(() => false);
      expect(inProject).toBe(where === "the project folder");
      const types = events.map((event) => event.type);
      expect(types.indexOf("setup")).toBeLessThan(types.indexOf("baseline"));
      const baseline = events.find((event) => event.type === "baseline") as
        | { checks: { validator: string; valid: boolean }[] }
        | undefined;
      expect(baseline?.checks).toContainEqual(
        expect.objectContaining({ validator: "check-passes", valid: true }),
      );
    });
  }

  it("a failing command ends the run with exit 2 before any query, naming it and the fix", {
    timeout: 60_000,
  }, async () => {
    repo = await makeSetupRepo(["echo 'npm ERR! missing lockfile' >&2; exit 3", MAKE_WIDGET]);
    const run = await runCloser(repo, "--no-worktree");
    expect(run.code, run.stderr).toBe(2);
    expect(run.result).toMatchObject({ status: "error", iterations: 0 });
    const reason = String(run.result.reason);
    expect(reason).toContain("exited 3");
    expect(reason).toContain("npm ERR! missing lockfile");
    expect(reason).toContain("fix runner.setup in agent.json or the project's install");
    const events = await readRecordedEvents(String(run.result.runDir));
    const setup = events.filter((event) => event.type === "setup");
    expect(setup).toHaveLength(1); // the second command never ran
    expect(setup[0]).toMatchObject({ exitCode: 3, stderr: "npm ERR! missing lockfile\n" });
    expect(events.some((event) => event.type.startsWith("backend"))).toBe(false);
    expect(events.some((event) => event.type === "baseline")).toBe(false);
    await expect(readFile(join(repo.dir, "work.txt"), "utf8")).rejects.toThrow();
  });
});

describe("closer init", () => {
  it("writes runner.setup from the project's lockfile: npm ci for package-lock.json", async () => {
    repo = await makeFixtureRepo({
      files: {
        "package.json": JSON.stringify({ name: "demo", scripts: { test: "node --test" } }),
        "package-lock.json": JSON.stringify({ name: "demo", lockfileVersion: 3, packages: {} }),
      },
    });
    const init = await cli("init", "demo", "--cwd", repo.dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr + init.stdout).toMatch(/setup:\s+npm ci/);
    const agent = JSON.parse(await readFile(join(repo.dir, ".agent/demo/agent.json"), "utf8"));
    expect(agent.runner.setup).toEqual(["npm ci"]);
  });
});
