import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_ADD, makeTaskRepo, runTask } from "./support/task-agent.js";

/** A test the model adds whose code, when the checks run it, points git at hooks of its own. */
const HOOKING_TEST = [
  'import { execSync } from "node:child_process";',
  'import { test } from "node:test";',
  "",
  'test("sets up", () => {',
  '  execSync("git config core.hooksPath /tmp/closer-planted-hooks");',
  "});",
  "",
].join("\n");

describe("scenarios: closer's git after the checks (docs/integrity.md#git-state)", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("a change the model's code makes to the git config while the checks run it is put back and fails the declaration", async () => {
    const setup = await makeTaskRepo();
    repo = setup.repo;
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD, "test/setup.test.js": HOOKING_TEST },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      },
      { files: { "test/setup.test.js": null }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);

    const { result, log } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    expect(result.iterations).toBe(2);
    const guards = log.of("guard").filter((event) => event.guard === "git-config-changed");
    expect(guards).toHaveLength(1);
    expect(guards[0]).toMatchObject({
      iteration: 1,
      valid: false,
      params: { gitPaths: ["config (changed)"] },
    });
    expect(guards[0]?.detail).toContain("during the checks");
    expect(log.of("declaration-refuted")).toHaveLength(1);
    expect(await readFile(join(setup.repo.dir, ".git/config"), "utf8")).not.toContain("hooksPath");
    expect(backend.calls[1]?.prompt).toContain("config (changed)");
  }, 60_000);
});
