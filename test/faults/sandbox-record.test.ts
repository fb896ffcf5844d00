import { existsSync } from "node:fs";
import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder } from "./support/run-folder.js";
import { sandboxMissing, sandboxWorks } from "./support/sandbox-works.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/**
 * The model's program: counts its queries in scratch/queries, says it is ready in
 * scratch/ready, waits for scratch/go (the test breaks the record meanwhile, from outside the
 * sandbox, where the model cannot), and asks for another iteration.
 */
const WAITING_MODEL = [
  READ_PROMPT,
  'import { appendFileSync, existsSync, writeFileSync } from "node:fs";',
  'appendFileSync("scratch/queries", "query\\n");',
  'writeFileSync("scratch/ready", "");',
  "for (let waited = 0; waited < 30_000 && !existsSync('scratch/go'); waited += 50) {",
  "  await new Promise((resolve) => setTimeout(resolve, 50));",
  "}",
  'console.log(JSON.stringify({ status: "in_progress", summary: "working", next_action: { action: "continue", reason: "more" } }));',
  "",
].join("\n");

/** The JSON result line of `--json`. */
function resultLine(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as Record<string, unknown>;
}

async function waitForFile(path: string, timeoutMs = 30_000): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 50) {
    if (waited > timeoutMs) throw new Error(`${path} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("The run record with the OS sandbox on", () => {
  describe(`where it works${sandboxWorks ? "" : ` — skipped, it cannot run here: ${sandboxMissing}`}`, {
    skip: !sandboxWorks,
  }, () => {
    let repo: FaultRepo | undefined;
    afterEach(async () => {
      await repo?.cleanup();
      repo = undefined;
    });

    /** `closer run` in its own process, the record broken by `breakRecord` while the first query waits. */
    async function runWithBrokenRecord(breakRecord: (runDir: string) => Promise<void>) {
      repo = await makeFaultRepo({ program: WAITING_MODEL });
      const before = await takeUserState(repo.dir);
      const closer = startCloser(
        ["run", repo.agent, "--task", "do it", "--no-worktree", "--sandbox", "on", "--json"],
        { cwd: repo.dir },
      );
      await waitForFile(join(repo.dir, "scratch/ready"));
      await breakRecord(await onlyRunFolder(repo.dir));
      await writeFile(join(repo.dir, "scratch/go"), "");
      const { code } = await closer.exited;
      return { code, stdout: closer.stdout(), stderr: closer.stderr(), before, dir: repo.dir };
    }

    fault(
      {
        what: "the run folder is deleted while a sandboxed run goes on",
        does: "the run ends at the next write as it does without the sandbox, with no further query (exit 1, status error, record_error): the message names the file and that the folder no longer exists, no stack trace; the --json result line is printed",
      },
      async () => {
        const run = await runWithBrokenRecord((runDir) => rm(runDir, { recursive: true }));
        expect(run.code, run.stderr).toBe(1);
        const line = resultLine(run.stdout);
        expect(line).toMatchObject({ status: "error", errorCode: "record_error" });
        expect(run.stderr + String(line.reason)).toMatch(
          /the run folder no longer exists \(ENOENT\)/,
        );
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(await readFile(join(run.dir, "scratch/queries"), "utf8")).toBe("query\n");
        await expectUserStateKept(run.dir, run.before, { movedBranches: ["main"] });
      },
      60_000,
    );

    fault(
      {
        what: "the disk is full while a sandboxed run writes events.jsonl (ENOSPC)",
        does: "the run ends as it does without the sandbox, with no further query (exit 1, status error, record_error): the message names events.jsonl and the full disk, no stack trace; the --json result line is printed",
      },
      async () => {
        const run = await runWithBrokenRecord(async (runDir) => {
          await rm(join(runDir, "events.jsonl"));
          await symlink("/dev/full", join(runDir, "events.jsonl"));
        });
        expect(run.code, run.stderr).toBe(1);
        const line = resultLine(run.stdout);
        expect(line).toMatchObject({ status: "error", errorCode: "record_error" });
        expect(String(line.reason)).toContain("no space left on the disk (ENOSPC)");
        expect(String(line.reason)).toContain("events.jsonl");
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(await readFile(join(run.dir, "scratch/queries"), "utf8")).toBe("query\n");
      },
      60_000,
    );
  });
});
