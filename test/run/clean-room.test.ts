import { mkdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import {
  DONE,
  doneTurn,
  eventLog,
  git,
  type IssueRepo,
  makeIssueRepo,
} from "./support/issue-repo.js";

const TASK = { kind: "text", title: "Add zeta", body: "Add zeta.txt." } as const;

/** Passes only where zeta.txt is in the tree it checks. */
const HAS_ZETA = {
  type: "command",
  command: "test -f zeta.txt || { echo 'zeta.txt is missing' >&2; exit 1; }",
  successWhen: "exitCode:0",
  failurePattern: "check-failed",
  extractParams: { errorOutput: "stderr" },
};

describe("docs/integrity.md#clean-room: the checks judge the work as git sees it", () => {
  let setup: IssueRepo | undefined;
  afterEach(async () => {
    await setup?.cleanup();
    setup = undefined;
  });

  async function run(current: IssueRepo, turns: Parameters<typeof makeScriptedBackend>[0]) {
    const log = eventLog();
    const backend = makeScriptedBackend(turns);
    const outcome = await runTask({
      agent: current.agent,
      cwd: current.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      backend,
      onEvent: log.onEvent,
    });
    return { outcome, log, backend };
  }

  it("work that lives only in a file git ignores is not checked: the check fails until it is committed", async () => {
    setup = await makeIssueRepo({
      validators: { "has-zeta": HAS_ZETA },
      conditions: ["git-clean", "has-zeta"],
    });
    const { outcome, log, backend } = await run(setup, [
      {
        files: { "zeta.txt": "zeta\n" },
        commands: [
          `printf 'zeta.txt\\n' >> .gitignore && git add .gitignore && git commit --quiet -m ignore`,
        ],
        structuredOutput: DONE,
      },
      {
        commands: [
          `git rm --quiet --cached .gitignore && git checkout HEAD~1 -- .gitignore && git add --all && git commit --quiet -m zeta`,
        ],
        structuredOutput: DONE,
      },
    ]);

    const refuted = log.of("declaration-refuted");
    expect(refuted.map((event) => [event.failed, event.pattern])).toEqual([
      ["has-zeta", "check-failed"],
    ]);
    expect(backend.calls[1]?.prompt).toContain("zeta.txt is missing");
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    expect(await git(setup.repo.dir, "show", "HEAD:zeta.txt")).toBe("zeta");
  });

  it.each([
    ["assume-unchanged", "--assume-unchanged"],
    ["skip-worktree", "--skip-worktree"],
  ])(
    "a change hidden behind %s is seen: git-clean fails in the room until it is committed",
    async (_name, flag) => {
      setup = await makeIssueRepo();
      await writeFile(join(setup.repo.dir, "BROKEN"), "broken\n");
      await git(setup.repo.dir, "add", "BROKEN");
      await git(setup.repo.dir, "commit", "--quiet", "-m", "break the widgets");
      const { outcome, log } = await run(setup, [
        { commands: [`rm BROKEN && git update-index ${flag} BROKEN`], structuredOutput: DONE },
        {
          commands: [
            `git update-index --no${flag.slice(1)} BROKEN && git rm --quiet BROKEN && git commit --quiet -m fix`,
          ],
          structuredOutput: DONE,
        },
      ]);

      const [first] = log.of("declaration-refuted");
      expect([first?.failed, first?.pattern]).toEqual(["git-clean", "git-dirty"]);
      const [dirty] = log.of("validator-end").filter((event) => event.validator === "git-clean");
      expect(dirty?.stdout).toContain(" D BROKEN");
      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
      expect(await git(setup.repo.dir, "ls-tree", "--name-only", "HEAD")).not.toContain("BROKEN");
    },
  );

  it("the project's ignored setup is there, and nothing tells a check it is closer's", async () => {
    setup = await makeIssueRepo({
      validators: {
        "deps-resolve": {
          type: "command",
          command: `node -e "require('widget-lib')"`,
          successWhen: "exitCode:0",
          failurePattern: "check-failed",
          extractParams: { errorOutput: "stderr" },
        },
        "where-and-what": {
          type: "command",
          command: `basename "$PWD"; env | grep -E '^CLOSER_|^TMPDIR=.*closer' || true`,
          successWhen: "exitCode:0",
          failurePattern: "check-failed",
          extractParams: { errorOutput: "stderr" },
        },
      },
      conditions: ["git-clean", "check-passes", "deps-resolve", "where-and-what"],
    });
    const library = join(setup.repo.dir, "node_modules", "widget-lib");
    await mkdir(library, { recursive: true });
    await writeFile(join(library, "index.js"), "module.exports = 1;\n");
    const { outcome, log } = await run(setup, [doneTurn("zeta.txt")]);

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const [seen] = log.of("validator-end").filter((event) => event.validator === "where-and-what");
    // The room's folder is named as the project's; no CLOSER_ variable, no scratch named closer.
    expect(seen?.stdout?.trim()).toBe(basename(setup.repo.dir));
  });
});
