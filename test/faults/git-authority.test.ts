import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { runCommand } from "../../src/process/shell-command.js";
import { cli } from "../cli/support/cli-repo.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** Hooks git runs around closer's commit, merge, branch deletion and worktree removal. */
const HOOK_NAMES = [
  "pre-commit",
  "post-commit",
  "post-merge",
  "post-checkout",
  "reference-transaction",
  "pre-push",
];

/**
 * The model's program: on its first query it runs `plant` (source lines with
 * `sh(command)` and `commonDir` at hand) and declares done; once the prompt
 * says its change to the git configuration was put back, it does the work
 * honestly (commits it) and declares done again.
 */
function plantingModel(plant: string): string {
  return [
    'import { execSync } from "node:child_process";',
    'import { writeFileSync } from "node:fs";',
    READ_PROMPT,
    "const sh = (command) => execSync(command, { encoding: 'utf8' }).trim();",
    "const commonDir = sh('git rev-parse --path-format=absolute --git-common-dir');",
    "if (!prompt.includes('git configuration')) {",
    plant,
    "} else {",
    '  writeFileSync("work.txt", "done\\n");',
    "  sh('git add work.txt && git commit --quiet -m work');",
    "}",
    DONE_ANSWER,
  ].join("\n");
}

/** The paths the first `git-config-changed` guard event names. */
function gitPathsOf(guards: readonly Record<string, unknown>[]): unknown {
  return (guards[0]?.params as { gitPaths?: unknown } | undefined)?.gitPaths;
}

describe("closer's own git", () => {
  let repo: FaultRepo | undefined;
  let outside: string;
  let marker: string;
  const token = process.env.GITHUB_TOKEN;
  beforeEach(async () => {
    outside = await realpath(await mkdtemp(join(tmpdir(), "closer-planted-")));
    marker = join(outside, "ran.log");
    process.env.GITHUB_TOKEN = "ghp_closerOwnTokenNeverForHooks";
  });
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
    await rm(outside, { recursive: true, force: true });
    if (token === undefined) delete process.env.GITHUB_TOKEN;
    else process.env.GITHUB_TOKEN = token;
  });

  /** A hook (or any program) that appends its name and the token it sees to the marker. */
  const hookSource = () =>
    `#!/bin/sh\necho "$(basename "$0") token=\${GITHUB_TOKEN:-none}" >> "${marker}"\n`;

  async function plantedHooksFolder(): Promise<string> {
    const folder = join(outside, "hooks");
    await mkdir(folder, { recursive: true });
    for (const name of HOOK_NAMES) {
      await writeFile(join(folder, name), hookSource());
      await chmod(join(folder, name), 0o755);
    }
    return folder;
  }

  const ranLog = () => readFile(marker, "utf8").catch(() => "");

  /** Runs the agent on a branch of its own (merged on success), and what the record says. */
  async function runMergingOnSuccess() {
    if (repo === undefined) throw new Error("no repository");
    // The git-state guard is the door closer keeps when the OS sandbox is off; with it on,
    // these writes are refused before they happen (test/faults/sandbox.test.ts).
    const result = await cli(
      ...["run", repo.agent, "--task", "write work.txt", "--branch", "closer/work"],
      ...["--cwd", repo.dir, "--json", "--sandbox", "off"],
    );
    const runDir = await onlyRunFolder(repo.dir);
    const events = await readRecordedEvents(runDir);
    const guards = events.filter(
      (event) => event.type === "guard" && event.guard === "git-config-changed",
    );
    const retryPrompt = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8").catch(
      () => "",
    );
    return { result, runDir, runJson: await readRunJson(runDir), guards, retryPrompt };
  }

  async function expectCaughtAndRestored(
    before: Awaited<ReturnType<typeof takeUserState>>,
    run: Awaited<ReturnType<typeof runMergingOnSuccess>>,
    changed: string,
  ): Promise<void> {
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(JSON.parse(run.result.stdout)).toMatchObject({ success: true, iterations: 2 });
    expect(run.runJson.status).toBe("completed");
    expect(run.guards).toHaveLength(1);
    expect(run.guards[0]).toMatchObject({ iteration: 1, valid: false });
    expect(gitPathsOf(run.guards)).toContain(changed);
    expect(run.retryPrompt).toContain(changed);
    expect(await ranLog()).toBe("");
    await expectUserStateKept(repo?.dir ?? "", before, { movedBranches: ["main"] });
  }

  fault(
    {
      what: "the model points core.hooksPath in the shared .git/config at hooks of its own",
      does: "restored after the query, before closer's git runs; the iteration fails git-config-changed, the retry prompt names .git/config; no planted hook runs at the merge",
    },
    async () => {
      const hooks = await plantedHooksFolder();
      repo = await makeFaultRepo({
        program: plantingModel(`sh('git config core.hooksPath ${hooks}');`),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      await expectCaughtAndRestored(before, run, "config (changed)");
    },
    60_000,
  );

  fault(
    {
      what: "the model plants reference-transaction and post-commit hooks in .git/hooks",
      does: "the planted hooks are removed after the query and the iteration fails git-config-changed; the user's own post-merge hook still runs at closer's merge, without GITHUB_TOKEN",
    },
    async () => {
      repo = await makeFaultRepo({
        program: plantingModel(
          ["reference-transaction", "post-commit"]
            .map(
              (name) =>
                `writeFileSync(commonDir + "/hooks/${name}", ${JSON.stringify(hookSource())}, { mode: 0o755 });`,
            )
            .join("\n"),
        ),
      });
      const userHook = join(repo.dir, ".git/hooks/post-merge");
      await writeFile(userHook, hookSource().replace("$(basename", "user-$(basename"));
      await chmod(userHook, 0o755);
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(gitPathsOf(run.guards)).toEqual([
        "hooks/post-commit (added)",
        "hooks/reference-transaction (added)",
      ]);
      expect(run.retryPrompt).toContain("hooks/reference-transaction (added)");
      const ran = await ranLog();
      expect(ran).not.toMatch(/^(reference-transaction|post-commit)/m);
      expect(ran).toContain("user-post-merge token=none");
      expect(ran).not.toContain("ghp_");
      await expectUserStateKept(repo.dir, before, { movedBranches: ["main"] });
    },
    60_000,
  );

  fault(
    {
      what: "the model sets core.fsmonitor to a program of its own",
      does: "closer's git runs with core.fsmonitor=false and the setting is put back after the query; the iteration fails git-config-changed; the program never runs",
    },
    async () => {
      const program = join(outside, "monitor");
      await writeFile(program, hookSource());
      await chmod(program, 0o755);
      repo = await makeFaultRepo({
        program: plantingModel(`sh('git config core.fsmonitor ${program}');`),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      await expectCaughtAndRestored(before, run, "config (changed)");
    },
    60_000,
  );

  fault(
    {
      what: "the model defines a clean filter in .git/config and puts every file under it in .gitattributes, so a `git add` of closer's (the clean room's, the iteration's diff) would run its program",
      does: "the filter is taken out of .git/config after the query, before closer's git reads the tree; the iteration fails git-config-changed; the program never runs in closer's git, in any iteration, and the planted .gitattributes is refused as a protected path",
    },
    async () => {
      const program = join(outside, "clean-filter");
      await writeFile(program, `${hookSource()}cat\n`);
      await chmod(program, 0o755);
      repo = await makeFaultRepo({
        program: plantingModel(
          [
            `sh('git config filter.planted.clean ${program}');`,
            "writeFileSync('.gitattributes', '* filter=planted\\n');",
            "writeFileSync('notes.txt', 'taken in by git add\\n');",
          ].join("\n"),
        ),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      expect(run.guards[0]).toMatchObject({ iteration: 1, valid: false });
      expect(gitPathsOf(run.guards)).toContain("config (changed)");
      expect(await ranLog()).toBe("");
      const config = await runCommand({
        command: ["git", "config", "--get", "filter.planted.clean"],
        cwd: repo.dir,
        timeoutMs: 10_000,
      });
      expect(config.stdout).toBe("");
      // The model's .gitattributes stays in the tree: no declaration with it completes.
      expect(run.runJson.status).not.toBe("completed");
      expect(JSON.stringify(run.runJson)).toContain(".gitattributes");
      await expectUserStateKept(repo.dir, before, { movedBranches: [] });
    },
    60_000,
  );

  fault(
    {
      what: "the model adds include.path to .git/config, naming a file that sets core.hooksPath and core.fsmonitor",
      does: "the include is taken out of .git/config after the query, so nothing of the planted file applies to closer's git; the iteration fails git-config-changed",
    },
    async () => {
      const hooks = await plantedHooksFolder();
      const included = join(outside, "planted.gitconfig");
      await writeFile(
        included,
        `[core]\n\thooksPath = ${hooks}\n\tfsmonitor = ${join(hooks, "post-commit")}\n`,
      );
      repo = await makeFaultRepo({
        program: plantingModel(`sh('git config include.path ${included}');`),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      await expectCaughtAndRestored(before, run, "config (changed)");
      const config = await runCommand({
        command: ["git", "config", "--get-all", "include.path"],
        cwd: repo.dir,
        timeoutMs: 10_000,
      });
      expect(config.stdout).toBe("");
    },
    60_000,
  );

  fault(
    {
      what: "the model plants a hook in .git/hooks and stops without declaring done, until the iteration cap ends the run",
      does: "exit 1 (max_iterations); the hook is removed after the query, the guard event names it, no declaration is counted as refuted; the user's .git/config and hooks are as they were",
    },
    async () => {
      repo = await makeFaultRepo({
        runner: { maxIterations: 1 },
        program: [
          'import { execSync } from "node:child_process";',
          'import { writeFileSync } from "node:fs";',
          READ_PROMPT,
          "const commonDir = execSync('git rev-parse --path-format=absolute --git-common-dir', { encoding: 'utf8' }).trim();",
          `writeFileSync(commonDir + "/hooks/post-checkout", ${JSON.stringify(hookSource())}, { mode: 0o755 });`,
          'console.log(JSON.stringify({ status: "in_progress", summary: "more to do", next_action: { action: "continue", reason: "later" } }));',
        ].join("\n"),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMergingOnSuccess();
      expect(run.result.code, run.result.stderr).toBe(1);
      expect(run.runJson.status).toBe("max_iterations");
      expect(gitPathsOf(run.guards)).toEqual(["hooks/post-checkout (added)"]);
      const events = await readRecordedEvents(run.runDir);
      expect(events.filter((event) => event.type === "declaration-refuted")).toEqual([]);
      await expect(stat(join(repo.dir, ".git/hooks/post-checkout"))).rejects.toThrow();
      expect(await ranLog()).toBe("");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );
});
