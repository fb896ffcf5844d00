import { spawnSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import type { ValidatorOutcome } from "../../src/ports.js";
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

async function scaffoldIn(project: RealProject): Promise<FixtureRepo> {
  const fixture = await makeFixtureRepo({ files: project.files });
  // The npm project's typescript: the one closer itself is built with, linked, not installed.
  if (project.kind === "npm") await symlink(NODE_MODULES, join(fixture.dir, "node_modules"), "dir");
  const init = await cli("init", "demo", "--cwd", fixture.dir);
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
