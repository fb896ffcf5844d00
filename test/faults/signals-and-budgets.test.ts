import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import type { RunEvent } from "../../src/ports/events.js";
import { runTask, taskFromText } from "../../src/run/index.js";
import { sandboxSupport } from "../../src/sandbox/sandbox-runtime.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import {
  isProcessAlive,
  liveMarkedProcesses,
  waitFor,
} from "../doubles/fake-claude/process-liveness.js";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { holdChecks, makeHoldingCheckRepo } from "./support/holding-check.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/**
 * The model: starts a child, writes the mark closer gave its processes to .closer/model-mark,
 * then waits for ever. In the OS sandbox a process's own pid is one of a namespace of its own,
 * so the test finds the model's processes by their mark, from outside.
 */
const HANGING_MODEL = `${READ_PROMPT}
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
spawn("sleep", ["600"], { stdio: "ignore" });
mkdirSync(".closer", { recursive: true });
writeFileSync(".closer/model-mark", process.env.PROCESS_TREE_MARK ?? "none");
await new Promise(() => setInterval(() => {}, 1000));
`;

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGTERM: 15 } as const;

async function waitForFile(path: string, limitMs = 30_000): Promise<string> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const text = await readFile(path, "utf8").catch(() => "");
    if (text.trim() !== "") return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} did not appear within ${limitMs} ms`);
}

/**
 * The mark a model or check wrote to `path`, once its processes run: the model and the child
 * it started at least (in the sandbox, the sandbox's own processes carry the mark too).
 */
async function runningMark(path: string, processes: number): Promise<string> {
  const mark = (await waitForFile(path)).trim();
  expect(mark).not.toBe("none");
  expect(await waitFor(async () => (await liveMarkedProcesses([mark])).length >= processes)).toBe(
    true,
  );
  return mark;
}

async function readEvents(runDir: string): Promise<RunEvent[]> {
  return (await readRecordedEvents(runDir)) as unknown as RunEvent[];
}

function eventsOf<T extends RunEvent["type"]>(events: readonly RunEvent[], type: T) {
  return events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
}

describe("Signals, budgets and processes", () => {
  let repo: FaultRepo | undefined;
  const leftPids: number[] = [];
  afterEach(async () => {
    for (const pid of leftPids.splice(0)) if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
    await repo?.cleanup();
    repo = undefined;
  });

  fault(
    {
      what: "the wall-time budget runs out while the model hangs in a query",
      does: "the query is stopped when the budget is spent, not at its timeout: exit 1, budget_exhausted (time) with the transcript and totals so far; the model's processes are gone",
    },
    async () => {
      repo = await makeFaultRepo({
        program: HANGING_MODEL,
        runner: { budgets: { maxWallTimeMs: 3000, queryTimeoutMs: 60_000 } },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--json", "--cwd", repo.dir);
      expect(result.code).toBe(1);
      const json = JSON.parse(result.stdout) as { status: string; reason: string };
      expect(json.status).toBe("budget_exhausted");
      expect(json.reason).toContain("budget of 3000 ms");
      expect(json.reason).toContain("the query under way was stopped");
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "budget_exhausted", iteration: 1 });
      const events = await readEvents(runDir);
      const ended = eventsOf(events, "backend-end");
      expect(ended).toHaveLength(1);
      expect(eventsOf(events, "budget").at(-1)?.exhausted).toBe("time");
      expect(existsSync(join(runDir, "transcripts/iteration-001.json"))).toBe(true);
      const mark = (await waitForFile(join(repo.dir, ".closer/model-mark"))).trim();
      expect(mark).not.toBe("none");
      expect(await liveMarkedProcesses([mark])).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the cost budget is spent while a query runs (the backend reports its running cost)",
      does: "the query is stopped at once: budget_exhausted (cost), the running cost counted in the totals",
    },
    async () => {
      repo = await makeFaultRepo({ runner: { budgets: { maxCostUsd: 0.5 } } });
      const before = await takeUserState(repo.dir);
      let aborted = false;
      const backend = makeScriptedBackend([
        (request) => {
          request.signal.addEventListener("abort", () => {
            aborted = true;
          });
          request.onCost?.(0.2);
          request.onCost?.(0.7);
          return { delayMs: 60_000, structuredOutput: {} };
        },
      ]);
      const outcome = await runTask({
        agent: await loadAgent(repo.agent, { cwd: repo.dir }),
        cwd: repo.dir,
        task: taskFromText("do it"),
        worktree: false,
        backend,
      });
      expect(outcome).toMatchObject({ status: "budget_exhausted" });
      expect(aborted).toBe(true);
      expect(outcome.reason).toContain("reached the budget of $0.5");
      expect(outcome.costUsd).toBeCloseTo(0.7);
      const runDir = await onlyRunFolder(repo.dir);
      const state = await readRunJson(runDir);
      expect(state).toMatchObject({ status: "budget_exhausted", totals: { costUsd: 0.7 } });
      const events = await readEvents(runDir);
      expect(eventsOf(events, "budget").at(-1)?.exhausted).toBe("cost");
      expect(eventsOf(events, "backend-end")[0]?.error?.kind).toBe("aborted");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  /** Sends `name` to closer while the model hangs in its query, and checks how the run ended. */
  async function signalDuringQuery(name: keyof typeof SIGNALS): Promise<void> {
    const code = 128 + SIGNALS[name];
    repo = await makeFaultRepo({ program: HANGING_MODEL });
    const before = await takeUserState(repo.dir);
    const closer = startCloser(["run", repo.agent, "--task", "do it", "--json"], {
      cwd: repo.dir,
    });
    const mark = await runningMark(join(repo.dir, ".closer/model-mark"), 2);
    closer.child.kill(name);
    const exit = await closer.exited;
    expect(exit.code).toBe(code);
    expect(closer.stderr()).toContain(
      `closer: stopping (${name}); the run record and the work so far are kept`,
    );
    const json = JSON.parse(closer.stdout()) as { status: string; reason: string };
    expect(json.status).toBe("aborted");
    expect(json.reason).toContain(`by ${name} during the query of iteration 1`);
    const runDir = await onlyRunFolder(repo.dir);
    expect(await readRunJson(runDir)).toMatchObject({
      status: "aborted",
      reason: json.reason,
    });
    const events = await readEvents(runDir);
    expect(eventsOf(events, "abort")).toEqual([
      expect.objectContaining({ signal: name, iteration: 1 }),
    ]);
    expect(await liveMarkedProcesses([mark])).toEqual([]);
    await expectUserStateKept(repo.dir, before);
  }

  fault(
    {
      what: "SIGHUP reaches closer while the model works (the terminal closed, ssh dropped)",
      does: "exit 129: the model's process group is ended, run.json says aborted by SIGHUP, an abort event names it, --json still prints the result",
    },
    () => signalDuringQuery("SIGHUP"),
    60_000,
  );

  fault(
    {
      what: "SIGTERM reaches closer while the model works",
      does: "exit 143: the model's process group is ended, run.json says aborted by SIGTERM, an abort event names it, --json still prints the result",
    },
    () => signalDuringQuery("SIGTERM"),
    60_000,
  );

  fault(
    {
      what: "SIGQUIT reaches closer while the model works",
      does: "exit 131: the model's process group is ended, run.json says aborted by SIGQUIT, an abort event names it, --json still prints the result",
    },
    () => signalDuringQuery("SIGQUIT"),
    60_000,
  );

  fault(
    {
      what: "Ctrl-C (SIGINT) while a check runs",
      does: "exit 130, aborted during the checks (not a failed check: no pattern, no retry); --resume runs that declaration's checks again, sends no prompt, and completes",
    },
    async () => {
      repo = await makeHoldingCheckRepo();
      const before = await takeUserState(repo.dir);
      await holdChecks(repo.dir);
      const closer = startCloser(["run", repo.agent, "--task", "do it", "--json"], {
        cwd: repo.dir,
      });
      const checkMark = await runningMark(join(repo.dir, ".closer/check-mark"), 1).catch(
        (error) => {
          throw new Error(`${error}\n${closer.stderr()}`);
        },
      );
      closer.child.kill("SIGINT");
      const exit = await closer.exited;
      expect(exit.code).toBe(130);
      const json = JSON.parse(closer.stdout()) as { status: string; reason: string; runId: string };
      expect(json.status).toBe("aborted");
      expect(json.reason).toContain("by SIGINT during the checks of iteration 1");
      expect(await liveMarkedProcesses([checkMark])).toEqual([]);
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({
        status: "aborted",
        checking: { iteration: 1 },
      });
      const stopped = eventsOf(await readEvents(runDir), "validator-end");
      expect(stopped).toEqual([expect.objectContaining({ aborted: true, valid: false })]);
      expect(stopped[0]?.pattern).toBeUndefined();

      await rm(join(repo.dir, ".closer/hold"));
      const resumed = await cli(
        "run",
        repo.agent,
        "--resume",
        json.runId,
        "--json",
        "--cwd",
        repo.dir,
      );
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", iterations: 1 });
      const events = await readEvents(runDir);
      expect(eventsOf(events, "backend-start")).toHaveLength(1);
      expect(eventsOf(events, "validator-end").at(-1)).toMatchObject({ valid: true });
      const state = await readRunJson(runDir);
      expect(state.status).toBe("completed");
      expect(state.checking).toBeUndefined();
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  /** Sends `name` to closer while a check runs, and checks how the run ended. */
  async function signalDuringChecks(name: keyof typeof SIGNALS): Promise<void> {
    repo = await makeHoldingCheckRepo();
    const before = await takeUserState(repo.dir);
    await holdChecks(repo.dir);
    const closer = startCloser(["run", repo.agent, "--task", "do it", "--json"], {
      cwd: repo.dir,
    });
    const checkMark = await runningMark(join(repo.dir, ".closer/check-mark"), 1);
    closer.child.kill(name);
    const exit = await closer.exited;
    expect(exit.code).toBe(128 + SIGNALS[name]);
    expect(JSON.parse(closer.stdout())).toMatchObject({ status: "aborted" });
    expect(await liveMarkedProcesses([checkMark])).toEqual([]);
    const runDir = await onlyRunFolder(repo.dir);
    const state = await readRunJson(runDir);
    expect(state).toMatchObject({ status: "aborted", checking: { iteration: 1 } });
    expect(state.reason).toContain(`by ${name} during the checks of iteration 1`);
    const events = await readEvents(runDir);
    expect(eventsOf(events, "abort")).toEqual([expect.objectContaining({ signal: name })]);
    expect(eventsOf(events, "declaration-refuted")).toEqual([]);
    await expectUserStateKept(repo.dir, before);
  }

  fault(
    {
      what: "SIGTERM while a check runs",
      does: "exit 143: the check's process group is ended, the run is aborted by SIGTERM during the checks, and run.json keeps the declaration to check again",
    },
    () => signalDuringChecks("SIGTERM"),
    60_000,
  );

  fault(
    {
      what: "SIGHUP while a check runs (the terminal closed during the checks)",
      does: "exit 129: the check's process group is ended, the run is aborted by SIGHUP during the checks, and run.json keeps the declaration to check again",
    },
    () => signalDuringChecks("SIGHUP"),
    60_000,
  );

  fault(
    {
      what: "SIGQUIT while a check runs",
      does: "exit 131: the check's process group is ended, the run is aborted by SIGQUIT during the checks, and run.json keeps the declaration to check again",
    },
    () => signalDuringChecks("SIGQUIT"),
    60_000,
  );

  /** A model that starts a daemon with setsid (its pid and mark go to .closer/daemon), then answers. */
  const DAEMON_MODEL = `${READ_PROMPT}
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
mkdirSync(".closer", { recursive: true });
spawn("setsid", ["sh", "-c", "echo $$ $PROCESS_TREE_MARK > .closer/daemon; exec sleep 600"], { stdio: "inherit" }).unref();
await new Promise((resolve) => setTimeout(resolve, 300));
${DONE_ANSWER}
`;

  async function daemonOf(dir: string): Promise<{ pid: number; mark: string }> {
    const [pid, mark = ""] = (await waitForFile(join(dir, ".closer/daemon"))).trim().split(/\s+/);
    expect(mark).not.toBe("");
    return { pid: Number(pid), mark };
  }

  fault(
    {
      what: "with the OS sandbox off, the model starts a daemon with setsid that keeps its stdout and stderr open, then answers and exits",
      does: "the query ends within seconds of the model's exit (not at the query timeout), the run completes, and a warning names the daemon's pid and command line as left running",
    },
    async () => {
      repo = await makeFaultRepo({
        program: DAEMON_MODEL,
        runner: { budgets: { queryTimeoutMs: 120_000 } },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "do it",
        "--json",
        "--sandbox",
        "off",
        "--cwd",
        repo.dir,
      );
      const daemon = await daemonOf(repo.dir);
      leftPids.push(daemon.pid);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed" });
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readEvents(runDir);
      expect(eventsOf(events, "backend-end")[0]?.error).toBeUndefined(); // no timeout
      const warnings = eventsOf(events, "warning").map((event) => event.message);
      expect(warnings).toEqual([
        expect.stringContaining(`process ${daemon.pid} (sleep 600) left the model's process group`),
      ]);
      expect(isProcessAlive(daemon.pid)).toBe(true);
      expect(await liveMarkedProcesses([daemon.mark])).toEqual([daemon.pid]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "in the OS sandbox, the model starts a daemon with setsid that keeps its stdout and stderr open, then answers and exits",
      does: "the daemon ends with the sandbox, which ends with the model: the query ends within seconds of the model's exit (not at the query timeout), the run completes, and nothing of the model is left running",
    },
    async (context) => {
      const support = await sandboxSupport();
      if (!support.works) context.skip(`the OS sandbox cannot run here: ${support.reason}`);
      repo = await makeFaultRepo({
        program: DAEMON_MODEL,
        runner: { budgets: { queryTimeoutMs: 120_000 } },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "do it",
        "--json",
        "--sandbox",
        "on",
        "--cwd",
        repo.dir,
      );
      const daemon = await daemonOf(repo.dir);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed" });
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ sandbox: { on: true } });
      const events = await readEvents(runDir);
      expect(eventsOf(events, "backend-end")[0]?.error).toBeUndefined(); // no timeout
      expect(eventsOf(events, "warning")).toEqual([]);
      expect(await liveMarkedProcesses([daemon.mark])).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );
});
