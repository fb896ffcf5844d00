import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import {
  folderBytes,
  longestEventLineBytes,
  onlyRunFolder,
  readRecordedEvents,
  readRunJson,
  runFolders,
} from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

const MB = 1_000_000;
const MIB = 1024 * 1024;

/** A check that prints `bytes` of passing lines to stderr, then the failing test last, and fails. */
function floodingCheck(bytes: number, lineEnds: boolean): string {
  return [
    `const line = ${lineEnds ? '"ok - a passing test\\n"' : '"x".repeat(1000)'};`,
    "const block = line.repeat(Math.ceil(65536 / line.length));",
    `for (let written = 0; written < ${bytes}; written += block.length) process.stderr.write(block);`,
    'process.stderr.write("\\nnot ok 9 - the failing test\\n");',
    "process.exitCode = 1;",
    "",
  ].join("\n");
}

const FLOODING_VALIDATOR = {
  "check-passes": {
    type: "command",
    command: "node flood.mjs",
    successWhen: "exitCode:0",
    failurePattern: "check-failed",
    extractParams: { errorOutput: "stderr" },
  },
};

/** Runs closer as its own process and samples its peak resident memory (VmHWM) until it ends. */
async function runMeasured(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string; peakRssMb: number }> {
  const closer = startCloser(args, { cwd });
  let peakKb = 0;
  const sample = setInterval(() => {
    readFile(`/proc/${closer.child.pid}/status`, "utf8")
      .then((status) => {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
        peakKb = Math.max(peakKb, kb);
      })
      .catch(() => undefined);
  }, 50);
  const { code } = await closer.exited;
  clearInterval(sample);
  return { code, stdout: closer.stdout(), stderr: closer.stderr(), peakRssMb: peakKb / 1024 };
}

/** The run folder's files below `sub`, as names. */
async function filesIn(runDir: string, sub: string): Promise<string[]> {
  return (await readdir(join(runDir, sub)).catch(() => [] as string[])).sort();
}

/** The JSON result line of `--json`. */
function resultLine(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as Record<string, unknown>;
}

/** Makes a folder unwritable, even for root (which ignores its mode): `chattr +i` then. */
async function makeUnwritable(dir: string): Promise<() => Promise<void>> {
  if (process.getuid?.() !== 0) {
    await chmod(dir, 0o555);
    return () => chmod(dir, 0o755);
  }
  const made = spawnSync("chattr", ["+i", dir]);
  if (made.status !== 0) throw new Error(`chattr +i ${dir}: ${made.stderr}`);
  return async () => {
    spawnSync("chattr", ["-i", dir]);
  };
}

/** The bounds of docs/record.md#bounded-record: a run folder under 20 MB, no events line over 1 MiB. */
async function expectBoundedRecord(runDir: string): Promise<void> {
  expect(await folderBytes(runDir)).toBeLessThan(20 * MB);
  expect(await longestEventLineBytes(runDir)).toBeLessThanOrEqual(MIB);
}

/** closer's peak memory stays well under what a whole copy of the output would take; the figures are printed. */
async function expectModestMemory(label: string, runDir: string, peakRssMb: number): Promise<void> {
  expect(peakRssMb).toBeLessThan(600);
  const folderMb = (await folderBytes(runDir)) / MB;
  console.info(
    `${label}: run folder ${folderMb.toFixed(2)} MB, peak RSS ${peakRssMb.toFixed(0)} MB`,
  );
}

describe("The run record", () => {
  let repo: FaultRepo | undefined;
  let restore: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await restore?.();
    restore = undefined;
    await repo?.cleanup();
    repo = undefined;
  });

  fault(
    {
      what: "a check prints 50 MB on every run",
      does: "the run goes on to its end (exit 1, retries_exhausted after two failed checks); each stored text keeps head and tail with a cut marker, the whole output is gzipped in payloads/, the failing test at the end still reaches the retry prompt; run folder under 20 MB, no events line over 1 MiB",
    },
    async () => {
      repo = await makeFaultRepo({
        files: { "flood.mjs": floodingCheck(50 * MB, true) },
        validators: FLOODING_VALIDATOR,
        runner: { maxIterations: 2 },
      });
      const before = await takeUserState(repo.dir);
      const run = await runMeasured(
        ["run", repo.agent, "--task", "make the check pass", "--json"],
        repo.dir,
      );
      expect(run.code, run.stderr).toBe(1);
      expect(resultLine(run.stdout).status).toBe("retries_exhausted");
      const runDir = await onlyRunFolder(repo.dir);
      expect((await readRunJson(runDir)).status).toBe("retries_exhausted");
      await expectBoundedRecord(runDir);
      const checks = (await readRecordedEvents(runDir)).filter(
        (event) => event.type === "validator-end" && event.validator === "check-passes",
      );
      expect(checks).toHaveLength(2);
      for (const check of checks) {
        expect(String(check.stderr)).toMatch(/…\[cut \d+\.\d MB; whole in payloads\/.+\.gz\]…/);
        expect(String(check.stderr)).toContain("not ok 9 - the failing test");
      }
      expect((await filesIn(runDir, "payloads")).length).toBeGreaterThan(0);
      const retryPrompt = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8");
      expect(retryPrompt).toContain("not ok 9 - the failing test");
      await expectModestMemory("validator printing 50 MB", runDir, run.peakRssMb);
      await expectUserStateKept(repo.dir, before);
    },
    180_000,
  );

  fault(
    {
      what: "the model's program prints 50 MB before its answer",
      does: "the answer at the end is still read and the run completes (exit 0); the transcript is kept gzipped, run folder under 20 MB, no events line over 1 MiB",
    },
    async () => {
      repo = await makeFaultRepo({
        program: [
          READ_PROMPT,
          'const block = "noise from the model\\n".repeat(4096);',
          "for (let written = 0; written < 50_000_000; written += block.length) process.stdout.write(block);",
          DONE_ANSWER,
          "",
        ].join("\n"),
      });
      const before = await takeUserState(repo.dir);
      const run = await runMeasured(["run", repo.agent, "--task", "do it", "--json"], repo.dir);
      expect(run.code, run.stderr).toBe(0);
      const runDir = await onlyRunFolder(repo.dir);
      expect((await readRunJson(runDir)).status).toBe("completed");
      expect(await filesIn(runDir, "transcripts")).toEqual(["iteration-001.json.gz"]);
      await expectBoundedRecord(runDir);
      await expectModestMemory("backend printing 50 MB", runDir, run.peakRssMb);
      await expectUserStateKept(repo.dir, before);
    },
    180_000,
  );

  fault(
    {
      what: "the task is 28 MB (or just over 1 MiB)",
      does: "exit 2 before anything starts: the task file, its size and the 1 MiB limit, and where to put the large part; no run folder",
    },
    async () => {
      repo = await makeFaultRepo();
      const before = await takeUserState(repo.dir);
      for (const bytes of [28 * MB, MIB + 1]) {
        const file = join(repo.dir, ".closer/task.md");
        await mkdir(join(repo.dir, ".closer"), { recursive: true });
        await writeFile(file, `# A huge task\n${"words ".repeat(Math.ceil(bytes / 6))}`);
        const result = await cli("run", repo.agent, "--task-file", file, "--cwd", repo.dir);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("the task file is too large");
        expect(result.stderr).toContain(file);
        expect(result.stderr).toContain("1 MiB");
      }
      expect(await runFolders(repo.dir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the runs folder is read-only",
      does: "exit 2 before any query: the runs folder and how to fix it (make it writable or --runs-dir); no run starts, nothing of the user's is touched",
    },
    async () => {
      repo = await makeFaultRepo();
      const runsDir = join(repo.dir, ".git/closer/runs");
      await mkdir(runsDir, { recursive: true });
      const before = await takeUserState(repo.dir);
      restore = await makeUnwritable(runsDir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`the runs folder ${runsDir} is not writable`);
      expect(result.stderr).toContain("--runs-dir");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await readdir(runsDir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the run folder is deleted while the run goes on",
      does: "the run ends at the next write, with no further query (exit 1, status error, record_error): the message names the file and that the folder no longer exists; the --json result line is printed",
    },
    async () => {
      repo = await makeFaultRepo({
        program: [
          READ_PROMPT,
          'import { appendFileSync, readdirSync, rmSync } from "node:fs";',
          'appendFileSync(".git/queries", "query\\n");',
          'for (const run of readdirSync(".git/closer/runs")) rmSync(".git/closer/runs/" + run, { recursive: true, force: true });',
          'console.log(JSON.stringify({ status: "in_progress", summary: "working", next_action: { action: "continue", reason: "more" } }));',
          "",
        ].join("\n"),
      });
      const before = await takeUserState(repo.dir);
      // Without the sandbox: inside it the model could not touch the run folder (docs/sandbox.md#policy).
      const result = await cli(
        ...["run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json", "--sandbox", "off"],
      );
      expect(result.code, result.stderr).toBe(1);
      const line = resultLine(result.stdout);
      expect(line.status).toBe("error");
      expect(line.errorCode).toBe("record_error");
      expect(result.stderr + String(line.reason)).toMatch(
        /the run folder no longer exists \(ENOENT\)/,
      );
      expect(String(line.reason)).toMatch(/events\.jsonl|run\.json|prompts|transcripts/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await readFile(join(repo.dir, ".git/queries"), "utf8")).toBe("query\n");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the disk is full while the run writes events.jsonl (ENOSPC)",
      does: "the run ends with no further query (exit 1, status error, record_error): the message names events.jsonl and the full disk; run.json still says error; the --json result line is printed",
    },
    async () => {
      repo = await makeFaultRepo({
        program: [
          READ_PROMPT,
          'import { appendFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";',
          'appendFileSync(".git/queries", "query\\n");',
          'for (const run of readdirSync(".git/closer/runs")) {',
          '  const events = ".git/closer/runs/" + run + "/events.jsonl";',
          "  rmSync(events, { force: true });",
          '  symlinkSync("/dev/full", events);',
          "}",
          'console.log(JSON.stringify({ status: "in_progress", summary: "working", next_action: { action: "continue", reason: "more" } }));',
          "",
        ].join("\n"),
      });
      const before = await takeUserState(repo.dir);
      // Without the sandbox: inside it the model could not touch the run folder (docs/sandbox.md#policy).
      const result = await cli(
        ...["run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json", "--sandbox", "off"],
      );
      expect(result.code, result.stderr).toBe(1);
      const line = resultLine(result.stdout);
      expect(line.status).toBe("error");
      expect(line.errorCode).toBe("record_error");
      expect(String(line.reason)).toContain("no space left on the disk (ENOSPC)");
      expect(String(line.reason)).toContain("events.jsonl");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      const runJson = await readRunJson(await onlyRunFolder(repo.dir));
      expect(runJson.status).toBe("error");
      expect(String(runJson.reason)).toContain("ENOSPC");
      expect(await readFile(join(repo.dir, ".git/queries"), "utf8")).toBe("query\n");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "run.json of a stopped run is corrupted, then resumed",
      does: "--resume is refused (exit 2) with the command that rebuilds it; --resume --rebuild rebuilds run.json from events.jsonl and goes on from the recorded iteration, keeping the damaged file; a changed definition snapshot is still refused",
    },
    async () => {
      repo = await makeFaultRepo({ files: { BROKEN: "broken\n" }, runner: { maxIterations: 1 } });
      const before = await takeUserState(repo.dir);
      const first = await cli("run", repo.agent, "--task", "fix it", "--cwd", repo.dir);
      expect(first.code, first.stderr).toBe(1);
      const runDir = await onlyRunFolder(repo.dir);
      const runId = runDir.split("/").at(-1) as string;
      const recorded = await readRunJson(runDir);
      await writeFile(join(runDir, "run.json"), "{ broken");

      const refused = await cli("run", repo.agent, "--resume", runId, "--cwd", repo.dir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("run.json is not valid JSON");
      expect(refused.stderr).toContain(`closer run faulty --resume ${runId} --rebuild`);

      // A snapshot changed since the run started is refused, rebuilt or not.
      const snapshotFile = join(runDir, "definition/agent.json");
      const snapshot = await readFile(snapshotFile, "utf8");
      await writeFile(snapshotFile, snapshot.replace("{", '{ "x": 1,'));
      const resumeRebuilt = () =>
        cli(
          "run",
          repo?.agent ?? "",
          "--resume",
          runId,
          "--rebuild",
          "--max-iterations",
          "2",
          "--cwd",
          repo?.dir ?? "",
        );
      const tampered = await resumeRebuilt();
      expect(tampered.code).toBe(2);
      expect(tampered.stderr).toContain("was changed after the run started");
      expect(existsSync(join(runDir, "run.json.damaged"))).toBe(true);
      await writeFile(snapshotFile, snapshot);

      const rebuilt = await resumeRebuilt();
      expect(rebuilt.code, rebuilt.stderr).toBe(1);
      const resumed = await readRunJson(runDir);
      // The rebuilt counters go on: the check failed once before, so its second failure exhausts the retries.
      expect(resumed.status).toBe("retries_exhausted");
      expect(resumed.iteration).toBe(2);
      expect(resumed.task).toEqual(recorded.task);
      expect(resumed.definition).toEqual(recorded.definition);
      expect(resumed.baseline).toEqual(recorded.baseline);
      expect(await readFile(join(runDir, "run.json.damaged"), "utf8")).toBe("{ broken");
      const starts = (await readRecordedEvents(runDir)).filter((e) => e.type === "iteration-start");
      expect(starts.map((event) => event.iteration)).toEqual([1, 2]);
      await expectUserStateKept(repo.dir, before);
    },
    120_000,
  );

  fault(
    {
      what: "a check prints 30 MB on one line without a line end",
      does: "the run goes on to its end (exit 1, max_iterations); the line keeps its head and tail with a cut marker; run folder under 20 MB, no events line over 1 MiB",
    },
    async () => {
      repo = await makeFaultRepo({
        files: { "flood.mjs": floodingCheck(30 * MB, false) },
        validators: FLOODING_VALIDATOR,
        runner: { maxIterations: 1 },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code, result.stderr).toBe(1);
      const runDir = await onlyRunFolder(repo.dir);
      expect((await readRunJson(runDir)).status).toBe("max_iterations");
      await expectBoundedRecord(runDir);
      const check = (await readRecordedEvents(runDir)).find(
        (event) => event.type === "validator-end" && event.validator === "check-passes",
      );
      expect(String(check?.stderr)).toMatch(/^x{1000}/);
      expect(String(check?.stderr)).toMatch(/…\[cut \d+\.\d MB; whole in payloads\//);
      await expectUserStateKept(repo.dir, before);
    },
    120_000,
  );
});
