import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { liveMarkedProcesses } from "../doubles/fake-claude/process-liveness.js";
import { PROJECT_TOP } from "../support/project-top.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** A package.json whose `lint` script runs `script`. */
function lintPackage(script: string): string {
  return `${JSON.stringify({ name: "proj", version: "1.0.0", private: true, scripts: { lint: script } })}\n`;
}

/** A command validator that fails the `check-failed` pattern with its stderr. */
function checkValidator(command: string) {
  return {
    type: "command",
    command,
    successWhen: "exitCode:0",
    failurePattern: "check-failed",
    extractParams: { errorOutput: "stderr" },
  };
}

describe("The checks", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function runWith(
    validators: Record<string, unknown>,
    agentFiles: Record<string, string> = {},
    project: { files?: Record<string, string>; program?: string } = {},
  ) {
    repo = await makeFaultRepo({
      ...project,
      agentFiles,
      validators,
      conditions: ["git-clean", ...Object.keys(validators)],
      runner: { maxIterations: 2, budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 1500 } },
    });
    const before = await takeUserState(repo.dir);
    const result = await cli(
      "run",
      repo.agent,
      "--task",
      "Check it",
      "--cwd",
      repo.dir,
      "--no-worktree",
      "--json",
    );
    await expectUserStateKept(repo.dir, before);
    const runDir = await onlyRunFolder(repo.dir);
    return {
      result,
      runDir,
      state: await readRunJson(runDir),
      events: await readRecordedEvents(runDir),
    };
  }

  fault(
    {
      what: "a check hangs past the validator timeout",
      does: "its process group is ended at the timeout and the check fails with a message saying so, which the retry prompt carries; no process is left running",
    },
    async () => {
      const hang = `cd ${PROJECT_TOP} && node -e "require('fs').writeFileSync('scratch/mark.txt', process.env.PROCESS_TREE_MARK); setInterval(() => {}, 1000)"`;
      const { result, state, events, runDir } = await runWith({ hangs: checkValidator(hang) });
      expect(result.code).toBe(1);
      expect(state.status).toBe("retries_exhausted");
      const ends = events.filter(
        (event) => event.type === "validator-end" && event.validator === "hangs",
      );
      expect(ends[0]).toMatchObject({ valid: false });
      expect(ends[0]).toMatchObject({ timedOut: true });
      const retry = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8");
      expect(retry).toMatch(/timed out|timeout/i);
      // Found by closer's mark: in the OS sandbox a process's own pid is not its pid here.
      const mark = await readFile(join(repo?.dir ?? "", "scratch/mark.txt"), "utf8");
      expect(mark).not.toBe("");
      expect(await liveMarkedProcesses([mark])).toEqual([]);
    },
    60_000,
  );

  fault(
    {
      what: "a check is killed by a signal (a segfaulting tool)",
      does: "a failed check whose output names the signal; the run goes on with a retry",
    },
    async () => {
      const { state, events } = await runWith({ segfaults: checkValidator("kill -SEGV $$") });
      expect(state.status).toBe("retries_exhausted");
      const end = events.find(
        (event) => event.type === "validator-end" && event.validator === "segfaults",
      );
      expect(end).toMatchObject({ valid: false });
      expect(JSON.stringify(end)).toMatch(/SIGSEGV|139/);
    },
  );

  fault(
    {
      what: "a check prints bytes that are not UTF-8",
      does: "the output is read with replacement characters; the record stays valid JSON lines and the retry prompt shows the readable part",
    },
    async () => {
      const bytes = "printf 'bad \\377\\376 bytes\\n' >&2; exit 1";
      const { state, runDir } = await runWith({ "bad-bytes": checkValidator(bytes) });
      expect(state.status).toBe("retries_exhausted");
      const retry = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8");
      expect(retry).toContain("bad \ufffd\ufffd bytes");
    },
  );

  fault(
    {
      what: "a check's program is not installed (`npm run lint` whose `biome` is missing)",
      does: "exit 2 (`config_error`) at the baseline: the message names the check, quotes what it printed (not npm's banner) and gives the fix; a first query sent beside the check is stopped, and a declaration it already made is never checked; run.json ends `error` with that reason",
    },
    async () => {
      const { result, state, events } = await runWith(
        {
          lint: {
            ...checkValidator("npm run lint"),
            extractParams: { lintErrors: "parseLintErrors", errorOutput: "output" },
          },
        },
        {},
        {
          files: { "package.json": lintPackage("closer-no-such-biome check .") },
          program: `import { writeFileSync } from "node:fs";\nwriteFileSync("scratch/queried", "yes");\n${READ_PROMPT}\n${DONE_ANSWER}\n`,
        },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('the check "lint" cannot run on the untouched tree');
      expect(result.stderr).toContain("closer-no-such-biome: not found");
      expect(result.stderr).toContain(
        "install closer-no-such-biome or fix the command in steps_registry.json validators.lint.command",
      );
      expect(result.stderr).not.toContain("> proj");
      expect(state).toMatchObject({ status: "error" });
      expect(String(state.reason)).toContain("closer-no-such-biome");
      // The check runs beside the first query (docs/integrity.md#baseline-beside-query): a query
      // still under way is stopped; a declaration of one that answered first is never checked.
      const ofType = (type: string) => events.filter((event) => event.type === type);
      for (const end of ofType("backend-end")) {
        if (end.error !== undefined) expect(end.error).toMatchObject({ kind: "aborted" });
      }
      expect(ofType("checks-start")).toEqual([]);
      expect(events.find((event) => event.type === "baseline")).toMatchObject({
        checks: expect.arrayContaining([
          expect.objectContaining({ validator: "lint", valid: false }),
        ]),
      });
      expect(events.at(-1)).toMatchObject({ type: "run-end", status: "error" });
    },
    60_000,
  );

  fault(
    {
      what: "a check fails on the untouched tree (the bug the task is about)",
      does: "the run goes on: the model is asked, and the failing check decides after its declaration",
    },
    async () => {
      const { result, state, events } = await runWith({
        failing: checkValidator("echo 'assertion failed: expected 4, got 5' >&2; exit 1"),
      });
      expect(result.code).toBe(1);
      expect(state.status).toBe("retries_exhausted");
      expect(events.some((event) => event.type === "backend-start")).toBe(true);
      expect(String(state.reason)).toContain("assertion failed: expected 4, got 5");
    },
    60_000,
  );

  fault(
    {
      what: "a custom validator's module throws",
      does: "exit 2 (`config_error`): the module runs in a child process, and the message names it, the error and the fix; the run ends `error` with its record",
    },
    async () => {
      const { state, events, result } = await runWith(
        {
          "custom-throws": {
            type: "custom",
            module: "validators/throws.mjs",
            failurePattern: "check-failed",
          },
        },
        {
          "validators/throws.mjs":
            'export default () => { throw new Error("the checker broke"); };\n',
        },
      );
      expect(result.code).toBe(2);
      expect(state).toMatchObject({ status: "error" });
      expect(result.stderr).toMatch(
        /validators\/throws\.mjs.*threw: the checker broke.*fix the module/,
      );
      const end = events.find(
        (event) => event.type === "validator-end" && event.validator === "custom-throws",
      );
      expect(end).toMatchObject({
        valid: false,
        configError: expect.stringContaining("the checker broke"),
      });
    },
  );
});
