import { mkdtemp, readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { git } from "../run/support/issue-repo.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { sandboxMissing, sandboxWorks } from "./support/sandbox-works.js";

type RecordedEvent = Record<string, unknown>;

/**
 * The model's program: on its first query it runs `attempt` (a bash line, its failure ignored)
 * and declares done; once the prompt says the OS sandbox refused something, it commits honest
 * work and declares done again.
 */
function escapingModel(attempt: string): string {
  return [
    'import { execSync } from "node:child_process";',
    'import { existsSync, writeFileSync } from "node:fs";',
    READ_PROMPT,
    "const sh = (line) => { try { execSync(line, { shell: '/bin/bash', stdio: 'ignore' }); } catch {} };",
    `if (!prompt.includes("OS sandbox")) sh(${JSON.stringify(attempt)});`,
    'else if (!existsSync("work.txt")) {',
    '  writeFileSync("work.txt", "done\\n");',
    '  sh("git add work.txt && git commit --quiet -m work");',
    "}",
    DONE_ANSWER,
  ].join("\n");
}

/** The shell's word for the common git dir, as the model finds it from its tree. */
const COMMON_DIR = '"$(git rev-parse --path-format=absolute --git-common-dir)"';

const ofType = (events: readonly RecordedEvent[], type: string) =>
  events.filter((event) => event.type === type);

describe("The OS sandbox holds what does not exist yet", () => {
  describe(`where it works${sandboxWorks ? "" : ` — skipped, it cannot run here: ${sandboxMissing}`}`, {
    skip: !sandboxWorks,
  }, () => {
    let repo: FaultRepo | undefined;
    let outside: string;
    beforeEach(async () => {
      outside = await realpath(await mkdtemp(join(tmpdir(), "closer-outside-")));
    });
    afterEach(async () => {
      await repo?.cleanup();
      repo = undefined;
      await rm(outside, { recursive: true, force: true });
    });

    /** A sandboxed run of the escaping model, after `setUp` took from the repository what it needs gone. */
    async function runEscape(
      attempt: string,
      place: "worktree" | "project",
      setUp: (dir: string) => Promise<void>,
    ) {
      repo = await makeFaultRepo({ program: escapingModel(attempt) });
      await setUp(repo.dir);
      const placeArgs = place === "worktree" ? ["--branch", "escape"] : ["--no-worktree"];
      const task = ["--task", "make the widgets work"];
      const flags = [...placeArgs, "--sandbox", "on", "--cwd", repo.dir, "--json"];
      const result = await cli("run", repo.agent, ...task, ...flags);
      const runDir = await onlyRunFolder(repo.dir);
      return {
        dir: repo.dir,
        result,
        runJson: await readRunJson(runDir),
        events: await readRecordedEvents(runDir),
        retryPrompt: await readFile(join(runDir, "prompts/iteration-002.md"), "utf8").catch(
          () => "",
        ),
      };
    }

    /** Refused and recorded, the declaration refuted, and nothing left for the git-state guard. */
    function expectRefused(run: Awaited<ReturnType<typeof runEscape>>, named: string): void {
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(JSON.parse(run.result.stdout)).toMatchObject({ success: true, iterations: 2 });
      const refused = ofType(run.events, "sandbox-refused");
      expect(refused[0]).toMatchObject({ iteration: 1, kind: "backend" });
      expect(((refused[0]?.refusals ?? []) as string[]).join("\n")).toContain(named);
      expect(run.retryPrompt).toContain(named);
      const gitGuards = ofType(run.events, "guard").filter(
        (event) => event.guard === "git-config-changed",
      );
      expect(gitGuards, "nothing reached the git state for the guard to put back").toEqual([]);
    }

    fault(
      {
        what: "the model creates .git/info/attributes and .git/hooks/post-commit in a --no-worktree run of a repository that has neither folder",
        does: "closer's git folders are read-only in the sandbox whether they existed or not: both writes are refused and recorded, neither file exists after the run, and the refusal refutes the declaration",
      },
      async () => {
        const attributes = ".git/info/attributes";
        const hook = ".git/hooks/post-commit";
        const run = await runEscape(
          `mkdir -p .git/info .git/hooks; echo '* filter=planted' > ${attributes}; printf '#!/bin/sh\\ntouch ${outside}/hook-ran\\n' > ${hook}; chmod +x ${hook}`,
          "project",
          async (dir) => {
            await rm(join(dir, ".git/info"), { recursive: true, force: true });
            await rm(join(dir, ".git/hooks"), { recursive: true, force: true });
          },
        );
        expectRefused(run, `${run.dir}/${attributes}`);
        await expect(stat(join(run.dir, attributes))).rejects.toThrow();
        await expect(stat(join(run.dir, hook))).rejects.toThrow();
        expect(await readdir(outside)).toEqual([]);
      },
      60_000,
    );

    fault(
      {
        what: "the model replaces its base commit with one of its own (git replace) in a --no-worktree run of a repository without refs/replace",
        does: "refs/replace is read-only in the sandbox whether it existed or not: the replace ref is not made, closer's git sees the real history; the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape(
          "git replace HEAD $(git commit-tree 'HEAD^{tree}' -m planted)",
          "project",
          async (dir) => {
            await rm(join(dir, ".git/refs/replace"), { recursive: true, force: true });
          },
        );
        expectRefused(run, `${run.dir}/.git/refs/replace`);
        expect(await git(run.dir, "replace", "--list")).toBe("");
        expect(await git(run.dir, "log", "--format=%s")).not.toContain("planted");
      },
      60_000,
    );

    fault(
      {
        what: "the model points the repository at another object store (objects/info/alternates) from its worktree",
        does: "the alternates file is read-only in the sandbox whether it existed or not: closer's git reads no other store (the file it holds is empty), the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape(
          `echo ${outside} > ${COMMON_DIR}/objects/info/alternates`,
          "worktree",
          async (dir) => {
            await rm(join(dir, ".git/objects/info/alternates"), { force: true });
          },
        );
        const alternates = join(run.dir, ".git/objects/info/alternates");
        expectRefused(run, alternates);
        expect(await readFile(alternates, "utf8").catch(() => "")).toBe("");
      },
      60_000,
    );
  });
});
