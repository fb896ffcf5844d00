import { constants } from "node:fs";
import { access, chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import { doneTurn, type IssueRepo, makeIssueRepo } from "./support/issue-repo.js";

const TASK = { kind: "text", title: "Add zeta", body: "Add zeta.txt." } as const;
/** The one question of docs/performance.md#run-start: where the project folder is in git. */
const PLACE_QUESTION = "rev-parse --git-common-dir --is-inside-work-tree";

/** The git the PATH names. */
async function findGit(): Promise<string> {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "git");
    const runnable = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (runnable) return candidate;
  }
  throw new Error("no git on PATH");
}

/** A `git` first on PATH that notes its arguments, one line a call, and runs the real one. */
async function loggingGit(folder: string, log: string): Promise<void> {
  const real = await findGit();
  const script = `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`;
  await writeFile(join(folder, "git"), script);
  await chmod(join(folder, "git"), 0o755);
}

describe("the start of a run", () => {
  let setup: IssueRepo | undefined;
  let folder: string | undefined;
  const path = process.env.PATH;
  afterEach(async () => {
    process.env.PATH = path;
    await setup?.cleanup();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    setup = undefined;
    folder = undefined;
  });

  it("asks git once where the project folder is: the run lock, the tree lock and the git requirement share the answer", async () => {
    setup = await makeIssueRepo();
    folder = await mkdtemp(join(tmpdir(), "closer-git-log-"));
    const log = join(folder, "calls.log");
    await loggingGit(folder, log);
    process.env.PATH = `${folder}${delimiter}${path ?? ""}`;
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const outcome = await runTask({
      // The sandbox would refuse the logging git its log, outside the tree.
      agent: applyCliOverrides(setup.agent, { sandbox: "off" }),
      cwd: setup.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      backend,
    });
    expect(outcome).toMatchObject({ success: true, status: "completed" });

    const calls = (await readFile(log, "utf8")).trim().split("\n");
    expect(calls.filter((call) => call.endsWith(PLACE_QUESTION))).toHaveLength(1);
    // Neither half of it is asked again on its own.
    expect(calls.filter((call) => call.endsWith("rev-parse --git-common-dir"))).toEqual([]);
    expect(calls.filter((call) => call.endsWith("rev-parse --is-inside-work-tree"))).toEqual([]);
  });
});
