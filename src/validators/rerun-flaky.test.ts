import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandValidatorDefinition } from "../ports/registry.js";
import type { CheckContext } from "../ports/validator.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { runValidator } from "./run-validator.js";

let repo: FixtureRepo;
let counterDir: string;
let counter: string;

beforeEach(async () => {
  repo = await makeFixtureRepo({ files: { "README.md": "# demo\n" } });
  counterDir = await realpath(await mkdtemp(join(tmpdir(), "closer-rerun-counter-")));
  counter = join(counterDir, "runs");
});
afterEach(async () => {
  await repo.cleanup();
  await rm(counterDir, { recursive: true, force: true });
});

function contextIn(cwd: string): CheckContext {
  return {
    cwd,
    agentDir: cwd,
    checkId: "check-1",
    env: { COUNTER: counter },
    signal: new AbortController().signal,
  };
}

/** A shell line that counts its runs in $COUNTER (outside the tree) and sets $n. */
const COUNT = 'n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$COUNTER";';

function validator(command: string, reruns: number): CommandValidatorDefinition {
  return {
    type: "command",
    name: "tests",
    command,
    successWhen: { kind: "exitCode", code: 0 },
    successWhenText: "exitCode:0",
    timeoutMs: 10_000,
    failurePattern: "test-failed",
    extractParams: { output: "stdout" },
    reruns,
    cache: true,
  };
}

async function runs(): Promise<number> {
  return Number((await readFile(counter, "utf8")).trim());
}

describe("reruns of a failing check", () => {
  it("passes a check that fails once on an unchanged tree, marked flaky", async () => {
    const command = `${COUNT} echo "run $n"; test "$n" -ge 2`;
    const outcome = await runValidator(validator(command, 2), contextIn(repo.dir));
    expect(outcome).toMatchObject({ valid: true, stdout: "run 2\n" });
    expect(outcome.flaky).toEqual({ failures: 1, reruns: 1 });
    expect(outcome.pattern).toBeUndefined();
    expect(await runs()).toBe(2);
  });

  it("keeps the first failure when no re-run passes", async () => {
    const command = `${COUNT} echo "run $n"; test "$n" -ge 3`;
    const outcome = await runValidator(validator(command, 1), contextIn(repo.dir));
    expect(outcome).toMatchObject({ valid: false, pattern: "test-failed" });
    expect(outcome.params).toEqual({ output: "run 1\n" });
    expect(outcome.flaky).toBeUndefined();
    expect(await runs()).toBe(2);
  });

  it("does not count a pass on a tree the re-run changed", async () => {
    const command = `${COUNT} if [ "$n" -ge 2 ]; then echo fixed > fixed.txt; exit 0; fi; exit 1`;
    const outcome = await runValidator(validator(command, 3), contextIn(repo.dir));
    expect(outcome).toMatchObject({ valid: false, pattern: "test-failed" });
    expect(outcome.flaky).toBeUndefined();
    expect(await runs()).toBe(2);
  });

  it("does not re-run a failure that changed the tree", async () => {
    const command = `${COUNT} echo "$n" > README.md; test "$n" -ge 2`;
    const outcome = await runValidator(validator(command, 3), contextIn(repo.dir));
    expect(outcome.valid).toBe(false);
    expect(await runs()).toBe(1);
  });

  it("runs a check once without reruns, and never re-runs a configuration error", async () => {
    const once = await runValidator(validator(`${COUNT} exit 1`, 0), contextIn(repo.dir));
    expect(once.valid).toBe(false);
    expect(await runs()).toBe(1);
    const missing = await runValidator(
      validator(`${COUNT} closer-missing-tool`, 3),
      contextIn(repo.dir),
    );
    expect(missing.configError).toContain("closer-missing-tool");
    expect(await runs()).toBe(2);
  });

  it("reads the tree's files outside git", async () => {
    const plain = await realpath(await mkdtemp(join(tmpdir(), "closer-rerun-plain-")));
    try {
      await writeFile(join(plain, "a.txt"), "a\n");
      const flaky = await runValidator(validator(`${COUNT} test "$n" -ge 2`, 1), contextIn(plain));
      expect(flaky.flaky).toEqual({ failures: 1, reruns: 1 });
      await rm(counter);
      const changed = await runValidator(
        validator(`${COUNT} echo "$n" > a.txt; test "$n" -ge 2`, 1),
        contextIn(plain),
      );
      expect(changed.valid).toBe(false);
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});
