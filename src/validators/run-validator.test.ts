import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSuccessWhen } from "../definition/success-when.js";
import type { CommandValidatorDefinition, FileValidatorDefinition } from "../ports/registry.js";
import type { CheckContext } from "../ports/validator.js";
import { runValidator } from "./run-validator.js";

let repo: string;
let agentDir: string;
let context: CheckContext;

const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });

beforeEach(async () => {
  repo = await mkdtemp(join(tmpdir(), "closer-validator-repo-"));
  agentDir = await mkdtemp(join(tmpdir(), "closer-validator-agent-"));
  git("init", "-q");
  git("config", "user.email", "closer@example.com");
  git("config", "user.name", "closer");
  await writeFile(join(repo, "a.txt"), "first\n");
  git("add", ".");
  git("commit", "-qm", "start");
  context = {
    cwd: repo,
    agentDir,
    checkId: "check-123",
    env: { CLOSER_TEST_MARK: "marked" },
    signal: new AbortController().signal,
  };
});
afterEach(async () => {
  await rm(repo, { recursive: true, force: true });
  await rm(agentDir, { recursive: true, force: true });
});

function commandValidator(
  fields: Partial<CommandValidatorDefinition> & { command: string; successWhenText: string },
): CommandValidatorDefinition {
  const parsed = parseSuccessWhen(fields.successWhenText);
  if (!parsed.ok) throw new Error(parsed.error);
  return {
    type: "command",
    name: "check",
    failurePattern: "check-failed",
    extractParams: {},
    reruns: 0,
    cache: true,
    timeoutMs: 10_000,
    successWhen: parsed.value,
    ...fields,
  };
}

describe("command validator", () => {
  const gitClean = commandValidator({
    name: "git-clean",
    command: "git status --porcelain",
    successWhenText: "empty",
    failurePattern: "git-dirty",
    extractParams: { changedFiles: "parseChangedFiles", untrackedFiles: "parseUntrackedFiles" },
  });

  it("passes on a clean working tree", async () => {
    const outcome = await runValidator(gitClean, context);
    expect(outcome).toMatchObject({ validator: "git-clean", valid: true, exitCode: 0, stdout: "" });
    expect(outcome.pattern).toBeUndefined();
    expect(outcome.configError).toBeUndefined();
  });

  it("fails on a dirty tree with the changed and untracked files as params", async () => {
    await writeFile(join(repo, "a.txt"), "changed\n");
    await writeFile(join(repo, "new file.txt"), "new\n");
    const outcome = await runValidator(gitClean, context);
    expect(outcome.valid).toBe(false);
    expect(outcome.pattern).toBe("git-dirty");
    expect(outcome.params).toEqual({ changedFiles: ["a.txt"], untrackedFiles: ["new file.txt"] });
    expect(outcome.stdout).toBe(' M a.txt\n?? "new file.txt"\n');
    expect(outcome.command).toBe("git status --porcelain");
  });

  it("names the failed tests of a real node --test run", async () => {
    await writeFile(
      join(repo, "math.test.mjs"),
      [
        'import { strictEqual } from "node:assert";',
        'import { describe, it, test } from "node:test";',
        'describe("math", () => {',
        '  it("adds", () => strictEqual(1 + 1, 2));',
        '  it("subtracts", () => strictEqual(3 - 1, 1));',
        "});",
        'test("divides by zero", () => { throw new Error("boom: division by zero"); });',
      ].join("\n"),
    );
    const outcome = await runValidator(
      commandValidator({
        name: "tests",
        command: "node --test math.test.mjs",
        successWhenText: "exitCode:0",
        failurePattern: "test-failed",
        extractParams: { failedTests: "parseTestOutput", code: "exitCode" },
      }),
      context,
    );
    expect(outcome.valid).toBe(false);
    expect(outcome.pattern).toBe("test-failed");
    expect(outcome.params.code).toBe(1);
    const failedTests = outcome.params.failedTests as { name: string; error: string }[];
    expect(failedTests.map((test) => test.name)).toEqual(["math > subtracts", "divides by zero"]);
    expect(failedTests[1]?.error).toContain("boom: division by zero");
  });

  it("gives the command its environment and the context's additions, but no CLOSER_* variable of closer's (docs/integrity.md#toolchain)", async () => {
    const outcome = await runValidator(
      commandValidator({
        command: 'echo "[$CLOSER_CHECK_ID$CLOSER_RUN_ID] $CLOSER_TEST_MARK"; test -n "$PATH"',
        successWhenText: "contains:[] marked",
      }),
      { ...context, processEnv: { PATH: process.env.PATH ?? "", CLOSER_RUN_ID: "run-1" } },
    );
    expect(outcome.valid).toBe(true);
  });

  it("reports a command that is not found as a configuration error", async () => {
    const outcome = await runValidator(
      commandValidator({
        name: "lint",
        command: "closer-missing-linter --fix",
        successWhenText: "exitCode:0",
      }),
      context,
    );
    expect(outcome.valid).toBe(false);
    expect(outcome.exitCode).toBe(127);
    expect(outcome.configError).toContain("closer-missing-linter");
    expect(outcome.configError).toContain('validator "lint"');
    expect(outcome.configError).toMatch(/install it/);
  });

  it("docs/completion.md#command-not-found fails the check, with its output, when a program the command starts is missing", async () => {
    const outcome = await runValidator(
      commandValidator({
        name: "tests",
        // The tool's name is made inside, as a test script's would be: the command does not name it.
        command: 'sh -c "closer-missing-$(echo inner)-tool"',
        successWhenText: "exitCode:0",
      }),
      context,
    );
    expect(outcome).toMatchObject({ valid: false, exitCode: 127 });
    expect(outcome.configError).toBeUndefined();
    expect(outcome.stderr).toContain("closer-missing-inner-tool");
  });

  it("gives the check no GitHub token of closer's", async () => {
    const saved = process.env.GITHUB_TOKEN;
    process.env.GITHUB_TOKEN = "ghp_notForChecks";
    try {
      const outcome = await runValidator(
        commandValidator({ command: 'test -z "$GITHUB_TOKEN"', successWhenText: "exitCode:0" }),
        context,
      );
      expect(outcome.valid).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.GITHUB_TOKEN;
      else process.env.GITHUB_TOKEN = saved;
    }
  });

  it("fails an empty-output rule when the command exited non-zero (outside a repository)", async () => {
    const outside = await mkdtemp(join(tmpdir(), "closer-validator-no-git-"));
    try {
      const outcome = await runValidator(gitClean, { ...context, cwd: outside });
      expect(outcome).toMatchObject({
        valid: false,
        exitCode: 128,
        stdout: "",
        pattern: "git-dirty",
      });
      expect(outcome.configError).toBeUndefined();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("says so when the working tree itself is missing", async () => {
    const outcome = await runValidator(
      commandValidator({ command: "git status --porcelain", successWhenText: "empty" }),
      { ...context, cwd: join(repo, "gone") },
    );
    expect(outcome.valid).toBe(false);
    expect(outcome.configError).toContain("is not a directory");
  });

  it("reports a timeout as a failure with what the command printed", async () => {
    const outcome = await runValidator(
      commandValidator({
        command: "echo started; sleep 30",
        successWhenText: "exitCode:0",
        timeoutMs: 300,
        extractParams: { output: "stdout" },
      }),
      context,
    );
    expect(outcome).toMatchObject({ valid: false, timedOut: true, pattern: "check-failed" });
    expect(outcome.params).toEqual({ output: "started\n" });
    expect(outcome.configError).toBeUndefined();
    expect(outcome.durationMs).toBeLessThan(10_000);
  });

  it("does not pass a check whose run was aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await runValidator(
      commandValidator({ command: "sleep 30", successWhenText: "empty" }),
      { ...context, signal: controller.signal },
    );
    expect(outcome.valid).toBe(false);
  });
});

function fileValidator(fields: Partial<FileValidatorDefinition> & { path: string }) {
  return {
    type: "file",
    name: "docs",
    failurePattern: "file-missing",
    extractParams: {},
    reruns: 0,
    cache: true,
    ...fields,
  } satisfies FileValidatorDefinition;
}

describe("file validator", () => {
  beforeEach(async () => {
    await mkdir(join(repo, "docs", "guide"), { recursive: true });
    await writeFile(join(repo, "docs", "guide", "usage.md"), "# Usage\nRun closer.\n");
    await writeFile(join(repo, "docs", "intro.md"), "# Intro\n");
    await writeFile(join(repo, "[id].ts"), "export {};\n");
  });

  it("passes when a glob matches", async () => {
    const outcome = await runValidator(fileValidator({ path: "docs/**/*.md" }), context);
    expect(outcome.valid).toBe(true);
    expect(outcome.params.matchedFiles).toEqual(["docs/guide/usage.md", "docs/intro.md"]);
  });

  it("takes a path without glob characters literally", async () => {
    expect((await runValidator(fileValidator({ path: "a.txt" }), context)).valid).toBe(true);
    expect((await runValidator(fileValidator({ path: "docs" }), context)).valid).toBe(true);
  });

  it("fails with the missing path when nothing matches", async () => {
    const outcome = await runValidator(
      fileValidator({ path: "CHANGELOG.md", extractParams: { problem: "stderr" } }),
      context,
    );
    expect(outcome).toMatchObject({ valid: false, pattern: "file-missing" });
    expect(outcome.params.missingFiles).toEqual(["CHANGELOG.md"]);
    expect(outcome.params.problem).toBe("no file matches CHANGELOG.md");
  });

  it("with contains, requires the text in every matched file", async () => {
    const some = await runValidator(
      fileValidator({ path: "docs/**/*.md", contains: "Run closer" }),
      context,
    );
    expect(some.valid).toBe(false);
    expect(some.params.filesWithoutText).toEqual(["docs/intro.md"]);
    const all = await runValidator(
      fileValidator({ path: "docs/**/*.md", contains: "# " }),
      context,
    );
    expect(all.valid).toBe(true);
  });

  it("reads /regex/flags in contains as a regular expression", async () => {
    const outcome = await runValidator(
      fileValidator({ path: "docs/guide/usage.md", contains: "/^run CLOSER\\.$/mi" }),
      context,
    );
    expect(outcome.valid).toBe(true);
    const literal = await runValidator(
      fileValidator({ path: "docs/guide/usage.md", contains: "/^run CLOSER/" }),
      context,
    );
    expect(literal.valid).toBe(false);
  });

  it.each(["../outside.txt", "docs/../../outside.txt", "/etc/passwd"])(
    "reports path %s, which leaves the working tree, as a configuration error",
    async (path) => {
      const outcome = await runValidator(fileValidator({ path }), context);
      expect(outcome.valid).toBe(false);
      expect(outcome.configError).toContain("leaves the working tree");
      expect(outcome.configError).toContain('validator "docs"');
    },
  );

  it("reports a broken regular expression as a configuration error", async () => {
    const outcome = await runValidator(fileValidator({ path: "a.txt", contains: "/([/" }), context);
    expect(outcome.configError).toContain("not a valid regular expression");
  });
});
