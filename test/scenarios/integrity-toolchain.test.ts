import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeScriptedBackend, type ScriptedTurn } from "../../src/testing/index.js";
import { makeTestsPassValidator } from "../support/test-agent.js";
import { BROKEN_PROJECT, COMMIT_ALL, DONE, makeTaskRepo, runTask } from "./support/task-agent.js";

/**
 * The toolchain the checks run with is part of what they measure
 * (docs/integrity.md#protected-paths): a model that changes how `npm test`
 * runs, rather than the code it tests, is refuted as protected-changed.
 */

const PACKAGE_JSON = (test: string) =>
  `${JSON.stringify({ name: "fixture", type: "module", private: true, scripts: { test } })}\n`;

function cheatingThrice(turn: ScriptedTurn): ScriptedTurn[] {
  return [turn, turn, turn];
}

describe("scenarios: the toolchain is held", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("an .npmrc whose node-options load code that passes the tests is protected-changed", async () => {
    const setup = await makeTaskRepo({
      files: { ...BROKEN_PROJECT, "package.json": PACKAGE_JSON("node --test") },
      validators: { "tests-pass": makeTestsPassValidator("npm test --silent") },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: {
          ".npmrc": "node-options=--require ./evil.cjs\n",
          "evil.cjs": 'process.on("exit", () => process.exit(0));\n',
        },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).not.toBe("completed");
    // The loaded code makes the failing tests pass: only the guard stands between it and `completed`.
    expect(log.of("validator-end").find((e) => e.validator === "tests-pass")?.valid).toBe(true);
    const guard = log.of("guard").find((event) => !event.valid);
    expect(guard).toMatchObject({ guard: "protected-changed" });
    expect(guard?.params?.protectedPaths).toEqual([".npmrc (added)"]);
    expect(log.of("retry-select")[0]?.pattern).toBe("protected-changed");
  });

  it("a runner in node_modules/.bin replaced by a shim that prints a pass is protected-changed", async () => {
    const setup = await makeTaskRepo({
      files: {
        ...BROKEN_PROJECT,
        ".gitignore": ".closer/\nnode_modules/\n",
        "package.json": PACKAGE_JSON("testrunner"),
      },
      validators: { "tests-pass": makeTestsPassValidator("npm test --silent") },
    });
    cleanup = setup.repo.cleanup;
    const runner = join(setup.repo.dir, "node_modules", ".bin", "testrunner");
    await mkdir(join(runner, ".."), { recursive: true });
    await writeFile(runner, '#!/bin/sh\nexec node --test "$@"\n');
    await chmod(runner, 0o755);
    const shim = `printf '#!/bin/sh\\necho "# pass 2"\\necho "# fail 0"\\n' > node_modules/.bin/testrunner`;
    const backend = makeScriptedBackend(
      // A tracked change too: the checks' outcome on an unchanged tree would be reused.
      cheatingThrice({
        files: { "NOTES.md": "fixed\n" },
        commands: [shim, COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).not.toBe("completed");
    expect(log.of("validator-end").find((e) => e.validator === "tests-pass")?.valid).toBe(true);
    const guard = log.of("guard").find((event) => !event.valid);
    expect(guard).toMatchObject({ guard: "protected-changed" });
    expect(guard?.params?.protectedPaths).toEqual(["node_modules/.bin › testrunner (changed)"]);
    expect(log.of("retry-select")[0]?.pattern).toBe("protected-changed");
  });
});
