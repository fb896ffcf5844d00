import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
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

  it("docs/observe.md#setup-progress: each command's start is shown while it runs, its end when it ends, and closer show renders them", {
    timeout: 60_000,
  }, async () => {
    const gates = await mkdtemp(join(tmpdir(), "closer-setup-gate-"));
    const gate = join(gates, "open");
    // The first command ends only once the test saw its start line and opened the gate.
    const waitForGate = `while [ ! -e '${gate}' ]; do sleep 0.05; done; echo 'gate opened'`;
    repo = await makeSetupRepo([waitForGate, MAKE_WIDGET]);
    const closer = startCloser(
      ["run", "fixer", "--task", "write work.txt", "--cwd", repo.dir, "--no-worktree"],
      { cwd: repo.dir },
    );
    // Whatever happens, the gate opens, so the command and closer end with the test.
    onTestFinished(async () => {
      await writeFile(gate, "");
      await closer.exited;
      await rm(gates, { recursive: true, force: true });
    });
    await closer.waitForStderr(`setup ${waitForGate} … (1/2)`);
    // Its end cannot be there yet: the command is still waiting for the gate.
    expect(closer.stderr()).not.toContain(`setup ${waitForGate} ✓`);
    expect(closer.stderr()).not.toContain("baseline");
    await writeFile(gate, "");
    const { code } = await closer.exited;
    const stderr = closer.stderr();
    expect(code, stderr).toBe(0);
    const lines = stderr.split("\n");
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const started = at(/setup while .* … \(1\/2\)/);
    const ended = at(/setup while .* ✓ \d/);
    const second = at(/setup mkdir -p node_modules\/widget.* … \(2\/2\)/);
    expect(started).toBeGreaterThanOrEqual(0);
    expect(ended).toBeGreaterThan(started);
    expect(second).toBeGreaterThan(ended);
    expect(at(/setup mkdir -p node_modules\/widget.* ✓/)).toBeGreaterThan(second);
    // Each end is shown once: the record's setup events, written when it opens, are not repeated.
    expect(lines.filter((line) => /setup while .* ✓/.test(line))).toHaveLength(1);
    expect(at(/baseline/)).toBeGreaterThan(second);

    const runs = join(repo.dir, ".git/closer/runs");
    const shown = await cli("show", "last", "--runs-dir", runs);
    expect(shown.code, shown.stderr).toBe(0);
    const setup = shown.stdout.split(/\n(?=Baseline|Iteration)/)[0] ?? "";
    expect(setup).toContain("Setup");
    expect(setup).toMatch(/✓ while \[ ! -e .* \(exit 0, \d+(?:ms|\.\ds)\)/);
    expect(setup).toMatch(/✓ mkdir -p node_modules\/widget.* \(exit 0, /);
    expect(setup).not.toContain("| gate opened"); // a command that passed is not quoted
  });

  it("a failing command ends the run with exit 2 before any query, naming it and the fix", {
    timeout: 60_000,
  }, async () => {
    const failing =
      "echo '> proj@1.0.0 prepare'; echo 'Error: Cannot find module ./schema' >&2; echo 'npm ERR! missing lockfile' >&2; exit 3";
    repo = await makeSetupRepo([failing, MAKE_WIDGET]);
    const run = await runCloser(repo, "--no-worktree");
    expect(run.code, run.stderr).toBe(2);
    expect(run.result).toMatchObject({ status: "error", iterations: 0 });
    const reason = String(run.result.reason);
    expect(reason).toContain("exited 3");
    expect(reason).toContain("Error: Cannot find module ./schema");
    const quoted = reason.split("\n").slice(1).join("\n"); // below the line naming the command
    expect(quoted).not.toContain("> proj@1.0.0 prepare");
    expect(reason).toContain("fix runner.setup in agent.json or the project's install");
    const events = await readRecordedEvents(String(run.result.runDir));
    const setup = events.filter((event) => event.type === "setup");
    expect(setup).toHaveLength(1); // the second command never ran
    expect(setup[0]).toMatchObject({
      exitCode: 3,
      stderr: "Error: Cannot find module ./schema\nnpm ERR! missing lockfile\n",
    });
    expect(events.some((event) => event.type.startsWith("backend"))).toBe(false);
    expect(events.some((event) => event.type === "baseline")).toBe(false);
    await expect(readFile(join(repo.dir, "work.txt"), "utf8")).rejects.toThrow();
    // The progress and closer show quote the command's meaningful lines, not the banner.
    expect(run.stderr).toMatch(/setup echo .* ✗ exit 3 .* · Error: Cannot find module \.\/schema/);
    const shown = await cli("show", "last", "--runs-dir", dirname(String(run.result.runDir)));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/✗ echo .* \(exit 3, /);
    expect(shown.stdout).toContain("| Error: Cannot find module ./schema");
    expect(shown.stdout).not.toContain("| > proj@1.0.0 prepare");
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
