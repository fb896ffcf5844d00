import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { git } from "../run/support/issue-repo.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRunJson } from "./support/run-folder.js";

/** A model that commits work.txt in its worktree, after running `meanwhile` (the user's doing, in the main checkout). */
function modelWith(userCheckout: string, meanwhile: string): string {
  return [
    'import { execFileSync, execSync } from "node:child_process";',
    'import { writeFileSync } from "node:fs";',
    READ_PROMPT,
    `execSync(${JSON.stringify(meanwhile)}, { cwd: ${JSON.stringify(userCheckout)} });`,
    'writeFileSync("work.txt", "the model\'s work\\n");',
    'execFileSync("git", ["add", "work.txt"]);',
    'execFileSync("git", ["commit", "--quiet", "-m", "work"]);',
    'console.log(JSON.stringify({ status: "completed", summary: "wrote work.txt", next_action: { action: "complete", reason: "done" } }));',
  ].join("\n");
}

describe("Worktrees and merges", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function run(meanwhile: string) {
    repo = await makeFaultRepo({ program: "" });
    await writeFile(repo.programPath, modelWith(repo.dir, meanwhile));
    // The change in the user's checkout stands for the user's own, made from the model's program
    // only for its timing; the user is not in the sandbox, so neither is the program here.
    const result = await cli(
      ...["run", repo.agent, "--task", "Write the work file", "--branch", "work"],
      ...["--cwd", repo.dir, "--json", "--sandbox", "off"],
    );
    return { result, state: await readRunJson(await onlyRunFolder(repo.dir)) };
  }

  fault(
    {
      what: "the user commits a conflicting change to the base branch while the run works",
      does: "the verified work is not merged over it: the run's branch and worktree are kept, the message names them, and the user's commit stays where it is",
    },
    async () => {
      const { result, state } = await run(
        `printf "the user's work\\n" > work.txt && git add work.txt && git commit --quiet -m mine`,
      );
      expect(result.stderr).toContain(
        "✗ worktree-keep work · merging work into main conflicts; resolve it by hand; the work is in",
      );
      const dir = repo?.dir ?? "";
      expect(await readFile(join(dir, "work.txt"), "utf8")).toBe("the user's work\n");
      expect(await git(dir, "log", "-1", "--format=%s", "main")).toBe("mine");
      expect(await git(dir, "rev-parse", "--verify", "--quiet", "refs/heads/work")).not.toBe("");
      expect(state.status).toBe("completed");
    },
    60_000,
  );

  fault(
    {
      what: "the user has uncommitted changes in the checkout the work merges into",
      does: "the changes are kept as they were; the work is merged only when that can be done without touching them, else kept on its branch with a message",
    },
    async () => {
      const { result, state } = await run("printf 'edited by the user\\n' >> README.md");
      expect(result.code).toBe(0);
      expect(state.status).toBe("completed");
      const dir = repo?.dir ?? "";
      expect(await readFile(join(dir, "README.md"), "utf8")).toBe(
        "# widgets\nedited by the user\n",
      );
    },
    60_000,
  );
});
