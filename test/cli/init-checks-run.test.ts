import { spawnSync } from "node:child_process";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import type { ValidatorOutcome } from "../../src/ports/validator.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { runValidator } from "../../src/validators/run-validator.js";
import { cli } from "./support/cli-repo.js";
import { REAL_PROJECTS, type RealProject } from "./support/init-real-projects.js";

const NODE_MODULES = fileURLToPath(new URL("../../node_modules", import.meta.url));

const onPath = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

let repo: FixtureRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** Runs every completion condition of the scaffolded agent in the project, as a run's checks do. */
async function runChecks(dir: string): Promise<Record<string, ValidatorOutcome>> {
  const agent = await loadAgent("demo", { cwd: dir });
  const step = agent.registry.completionSteps["complete.issue"];
  const outcomes: Record<string, ValidatorOutcome> = {};
  for (const { validator } of step?.completionConditions ?? []) {
    const definition = agent.registry.validators[validator];
    if (definition === undefined) throw new Error(`no validator ${validator}`);
    outcomes[validator] = await runValidator(definition, {
      cwd: dir,
      agentDir: agent.dir,
      checkId: `check-${validator}`,
      env: {},
      signal: new AbortController().signal,
    });
  }
  return outcomes;
}

const verdicts = (outcomes: Record<string, ValidatorOutcome>) =>
  Object.fromEntries(Object.entries(outcomes).map(([name, outcome]) => [name, outcome.valid]));

async function scaffoldIn(project: RealProject, ...flags: string[]): Promise<FixtureRepo> {
  const fixture = await makeFixtureRepo({ files: project.files });
  // The npm project's typescript: the one closer itself is built with, linked, not installed.
  if (project.kind === "npm") await symlink(NODE_MODULES, join(fixture.dir, "node_modules"), "dir");
  const init = await cli("init", "demo", "--cwd", fixture.dir, ...flags);
  expect(init.code, init.stderr).toBe(0);
  await fixture.commitAll("add the demo agent");
  return fixture;
}

describe("the checks closer init chose, run for real in the project", () => {
  for (const project of REAL_PROJECTS) {
    const present = onPath(project.tool);
    const name = present
      ? `${project.kind}: pass on the project as written, and name the failed test once it is broken`
      : `${project.kind}: not run here, ${project.tool} is not installed on this machine (the command is asserted in init-command.test.ts)`;
    it.runIf(present)(name, { timeout: 180_000 }, async () => {
      repo = await scaffoldIn(project);
      const passing = await runChecks(repo.dir);
      for (const outcome of Object.values(passing)) {
        expect(outcome.configError, JSON.stringify(outcome.params)).toBeUndefined();
      }
      expect(Object.values(verdicts(passing))).not.toContain(false);
      expect(passing["tests-pass"]).toBeDefined();

      for (const [path, text] of Object.entries(project.broken)) {
        await writeFile(join(repo.dir, path), text);
      }
      await repo.commitAll("break it");
      const failing = await runChecks(repo.dir);
      expect(failing["git-clean"]?.valid).toBe(true);
      const tests = failing["tests-pass"];
      expect(tests?.valid).toBe(false);
      expect(tests?.configError).toBeUndefined();
      const failedTests = tests?.params.failedTests as { name: string }[];
      expect(failedTests.map((test) => test.name).join("\n")).toContain(project.failedTest);
      if (project.kind === "npm") {
        const typeCheck = failing["type-check"];
        expect(typeCheck?.valid).toBe(false);
        expect(typeCheck?.params.typeErrors).toEqual([
          expect.objectContaining({ file: "src/label.ts", line: 1 }),
        ]);
      }
    });
  }
});

/**
 * A model for the command backend: declares the work done without doing it, and fixes the
 * code only once the retry prompt names the failed test. Every prompt goes to .closer/prompts.txt
 * (ignored by git; the OS sandbox lets the model write only inside the working tree).
 */
const MODEL_PROGRAM = `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
let prompt = "";
for await (const chunk of process.stdin) prompt += chunk;
mkdirSync(".closer", { recursive: true });
appendFileSync(".closer/prompts.txt", prompt + "\\n=====\\n");
if (prompt.includes("Review before closing")) {
  console.log(JSON.stringify({ allComplete: true, checklist: [{ item: "add", done: true, evidence: "test/add.test.mjs" }], pendingActions: [] }));
  process.exit(0);
}
if (prompt.includes("- adds two numbers")) {
  writeFileSync("src/add.mjs", "export const add = (a, b) => a + b;\\n");
  execFileSync("git", ["commit", "--quiet", "-am", "add adds"]);
}
const report = prompt.includes("validation")
  ? { validation: { git_clean: true, tests_passed: true, type_check_passed: true }, evidence: { tests_output: "# pass 1" } }
  : {};
console.log(JSON.stringify({ status: "completed", summary: "done", next_action: { action: "complete", reason: "done" }, ...report }));
`;

/** The npm project with its test failing from the start (its types are fine), scaffolded with `flags`, run by MODEL_PROGRAM. */
async function runBrokenNpm(...flags: string[]) {
  const npm = REAL_PROJECTS.find((project) => project.kind === "npm");
  if (npm === undefined) throw new Error("no npm project");
  repo = await scaffoldIn(
    { ...npm, files: { ...npm.files, "src/add.mjs": npm.broken["src/add.mjs"] ?? "" } },
    ...flags,
  );
  const outside = await makeFixtureRepo({ files: { "model.mjs": MODEL_PROGRAM } });
  try {
    const agentJson = join(repo.dir, ".agent/demo/agent.json");
    const agent = JSON.parse(await readFile(agentJson, "utf8"));
    agent.runner.backend = { kind: "command", command: ["node", join(outside.dir, "model.mjs")] };
    // The fixture brings its installed dependencies itself; its lockfile is a stand-in `npm ci` refuses.
    agent.runner.setup = [];
    await writeFile(agentJson, JSON.stringify(agent, null, 2));
    await repo.commitAll("the command backend");
    const result = await cli(
      "run",
      "demo",
      "--task",
      "make add add",
      "--cwd",
      repo.dir,
      "--no-worktree",
      "--json",
    );
    const sent = (await readFile(join(repo.dir, ".closer/prompts.txt"), "utf8")).split("\n=====\n");
    return { result, sent };
  } finally {
    await outside.cleanup();
  }
}

describe("closer run with the agent closer init scaffolded", () => {
  it("npm: the failing test is named in the retry prompt, and the run completes once it passes", async () => {
    const { result, sent } = await runBrokenNpm();
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      success: true,
      status: "completed",
      iterations: 2,
    });
    const retry = sent.find((prompt) => prompt.includes("# The tests fail"));
    expect(retry).toContain("You declared the work complete, but `npm test` fails.");
    expect(retry).toContain("- adds two numbers");
    expect(sent[0]).toContain("Run the test suite (`npm test`)");
    expect(sent[0]).not.toContain("`validation`");
  });

  it("--with-evidence: the answer reports each check, and the retry names the reports npm test contradicts", async () => {
    const { result, sent } = await runBrokenNpm("--with-evidence");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed", iterations: 2 });
    expect(sent[0]).toContain("`git_clean`, `tests_passed`, `type_check_passed`");
    const retry = sent.find((prompt) => prompt.includes("# The tests fail")) ?? "";
    expect(retry).toContain("you reported validation.tests_passed: true; `npm test` failed:");
    expect(retry).toContain('you reported evidence.tests_output: "# pass 1"; `npm test` failed:');
    expect(retry).not.toContain("validation.git_clean");
    expect(retry).not.toContain("validation.type_check_passed");
  });
});
