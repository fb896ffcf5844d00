import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { liveMarkedProcesses } from "../doubles/fake-claude/process-liveness.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** Source lines: the model answers as `failing` says on its first `times` calls (counted in a file beside it). */
function failFirst(times: number, failing: string): string {
  return [
    'import { existsSync, readFileSync, writeFileSync } from "node:fs";',
    READ_PROMPT,
    'const counter = new URL("./scratch/calls.txt", import.meta.url);',
    "const calls = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;",
    "writeFileSync(counter, String(calls + 1));",
    `if (calls < ${times}) { ${failing} }`,
    DONE_ANSWER,
  ].join("\n");
}

const QUICK_BUDGETS = { queryTimeoutMs: 1500, validatorTimeoutMs: 10_000 };

describe("The model's backend", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function run(program: string, runner: Record<string, unknown> = {}) {
    repo = await makeFaultRepo({ program, runner: { budgets: QUICK_BUDGETS, ...runner } });
    const before = await takeUserState(repo.dir);
    const result = await cli(
      "run",
      repo.agent,
      "--task",
      "Write nothing",
      "--cwd",
      repo.dir,
      "--no-worktree",
      "--json",
    );
    const runDir = await onlyRunFolder(repo.dir);
    await expectUserStateKept(repo.dir, before);
    const json = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as Record<
      string,
      unknown
    >;
    return { result, json, runDir, state: await readRunJson(runDir) };
  }

  fault(
    {
      what: "the model's program crashes with a stack trace",
      does: "exit 3 (`backend_error`): the run ends `error` naming the program, its exit code and the end of its stderr; the record is complete",
    },
    async () => {
      const { result, json, state, runDir } = await run(
        `${READ_PROMPT}\nthrow new Error("model program exploded");`,
      );
      expect(result.code).toBe(3);
      expect(json).toMatchObject({ status: "error", errorCode: "backend_error" });
      expect(String(state.reason)).toMatch(/node exited with code 1.*model program exploded/s);
      expect(state.status).toBe("error");
      const events = await readRecordedEvents(runDir);
      expect(events.at(-1)).toMatchObject({ type: "run-end", status: "error" });
    },
  );

  fault(
    {
      what: "the model's program is killed by a signal (SIGKILL, out of memory)",
      does: "exit 3: the run ends `error` saying which signal ended the program before it answered",
    },
    async () => {
      const { result, state } = await run(`${READ_PROMPT}\nprocess.kill(process.pid, "SIGKILL");`);
      expect(result.code).toBe(3);
      expect(state).toMatchObject({ status: "error" });
      expect(String(state.reason)).toContain("killed by SIGKILL");
    },
  );

  fault(
    {
      what: "the model hangs past the query timeout",
      does: "its process group is ended at the timeout, the query repeated twice with a wait, then exit 3 with `error`; no process is left running",
    },
    async () => {
      const program = [
        'import { writeFileSync } from "node:fs";',
        READ_PROMPT,
        'writeFileSync(new URL("./scratch/mark.txt", import.meta.url), process.env.PROCESS_TREE_MARK);',
        "setInterval(() => {}, 1000);",
      ].join("\n");
      const { result, state, runDir } = await run(program);
      expect(result.code).toBe(3);
      expect(String(state.reason)).toMatch(/timeout 3 times in a row/);
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "backend-start")).toHaveLength(3);
      expect(events.filter((event) => event.type === "backend-wait")).toHaveLength(2);
      // Found by closer's mark: in the OS sandbox a process's own pid is not its pid here.
      const mark = await readFile(join(repo?.dir ?? "", "scratch/mark.txt"), "utf8");
      expect(mark).not.toBe("");
      expect(await liveMarkedProcesses([mark])).toEqual([]);
    },
    60_000,
  );

  fault(
    {
      what: "the model API answers 429 (rate limit) with a reset time",
      does: "closer waits until the reset and repeats the same prompt; no iteration or retry is spent and the run completes",
    },
    async () => {
      const { result, state, runDir } = await run(
        failFirst(
          2,
          'console.error("Error: 429 rate_limit_exceeded, try again in 1 s"); process.exit(1);',
        ),
      );
      expect(result.code).toBe(0);
      expect(state).toMatchObject({ status: "completed", iteration: 1 });
      const events = await readRecordedEvents(runDir);
      const waits = events.filter((event) => event.type === "backend-wait");
      expect(waits.map((event) => event.waitMs)).toEqual([1000, 1000]);
      const prompts = events.filter((event) => event.type === "prompt");
      expect(prompts).toHaveLength(1);
    },
    30_000,
  );

  fault(
    {
      what: "the model API is overloaded (529) for a while",
      does: "closer waits it out with backoff (the retry-after when given) and repeats the query; the run completes in one iteration",
    },
    async () => {
      const { result, state, runDir } = await run(
        failFirst(
          1,
          'console.error("Error: 529 overloaded_error, retry after 1 s"); process.exit(1);',
        ),
      );
      expect(result.code).toBe(0);
      expect(state).toMatchObject({ status: "completed", iteration: 1 });
      const waits = (await readRecordedEvents(runDir)).filter(
        (event) => event.type === "backend-wait",
      );
      expect(waits).toHaveLength(1);
      expect(waits[0]).toMatchObject({ reason: expect.stringMatching(/overloaded/), waitMs: 1000 });
    },
    30_000,
  );

  fault(
    {
      what: "the model API rejects the key (401)",
      does: "exit 3 (`auth_error`) at once, without repeating: the message says the login failed",
    },
    async () => {
      const { result, json, runDir } = await run(
        `${READ_PROMPT}\nconsole.error("Error: 401 invalid x-api-key"); process.exit(1);`,
      );
      expect(result.code).toBe(3);
      expect(json).toMatchObject({ status: "error", errorCode: "auth_error" });
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "backend-start")).toHaveLength(1);
    },
  );

  fault(
    {
      what: "the model answers prose that declares nothing",
      does: "no check runs on it; each answer is an undecidable declaration, retried with the built-in text, until `max_iterations` (exit 1)",
    },
    async () => {
      const { result, state, runDir } = await run(
        `${READ_PROMPT}\nconsole.log("I think I am done, probably");`,
      );
      expect(result.code).toBe(1);
      expect(state).toMatchObject({ status: "max_iterations", iteration: 3 });
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "validator-start")).toEqual([]);
      expect(events.filter((event) => event.type === "decision")).toHaveLength(3);
    },
  );

  fault(
    {
      what: "the model prints bytes that are not UTF-8",
      does: "they are read as replacement characters; the record stays valid JSON lines and the declaration after them counts",
    },
    async () => {
      const { result, state, runDir } = await run(
        `${READ_PROMPT}\nprocess.stdout.write(Buffer.from([0xff, 0xfe, 0x41, 0x0a]));\n${DONE_ANSWER}`,
      );
      expect(result.code).toBe(0);
      expect(state.status).toBe("completed");
      const transcript = await readFile(join(runDir, "transcripts/iteration-001.json"), "utf8");
      expect(JSON.parse(transcript)[0].stdout).toContain("\ufffd\ufffdA");
    },
  );
});
