import { afterEach, describe, expect, it, vi } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { resumeRun, runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import {
  type FakeClaude,
  type FakeClaudeTurn,
  makeFakeClaude,
} from "../doubles/fake-claude/make-fake-claude.js";
import {
  type FakeCliName,
  type FakeCliSetup,
  type FakeCliTurn,
  fakeCliPath,
  setUpFakeCli,
} from "../doubles/fake-cli/fake-cli-harness.js";
import { fakeClaudeRunOptions, fixerRunOptions } from "./support/fake-claude-run.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";
import { type RecordedEvent, readRecordedEvents } from "./support/recorded-events.js";

/**
 * An overloaded or briefly unreachable model API is waited out, not fatal:
 * whole runs through the real wire protocols (the Claude Agent SDK driving
 * the fake Claude Code executable, and each agent CLI's fake), on the test
 * clock, so minutes of backoff pass at once and every wait can be read back.
 */

interface WaitEvent extends RecordedEvent {
  readonly iteration?: number;
  readonly reason?: string;
  readonly waitMs?: number;
  readonly attempt?: number;
}

function waitsOf(events: readonly WaitEvent[]): WaitEvent[] {
  return events.filter((event) => event.type === "backend-wait");
}

async function makeRepo(backend: Record<string, unknown>, transientWaitMs?: number) {
  const budgets = {
    queryTimeoutMs: 20_000,
    validatorTimeoutMs: 20_000,
    ...(transientWaitMs === undefined ? {} : { transientWaitMs }),
  };
  // The fakes find their scripts through these (docs/backends.md#environment).
  const env = { backend: ["FAKE_CLI_*", "FAKE_CLAUDE_*"] };
  const agent = makeIssueAgent({ runner: { backend, env, maxIterations: 4, budgets } });
  return makeFixtureRepo({ files: PROJECT, agents: [agent] });
}

describe("a model API in trouble, through the SDK and the fake Claude Code", () => {
  let repo: FixtureRepo | undefined;
  let claude: FakeClaude | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    await claude?.cleanup();
    repo = undefined;
    claude = undefined;
  });

  async function start(turns: readonly FakeClaudeTurn[], transientWaitMs?: number) {
    repo = await makeRepo(
      {
        kind: "claude-sdk",
        model: "claude-agent-model",
        permissionMode: "bypassPermissions",
      },
      transientWaitMs,
    );
    claude = await makeFakeClaude();
    await claude.script(turns);
    const { clock, options } = await fakeClaudeRunOptions(repo, claude);
    return { claude, clock, options };
  }

  it("529 overloaded five times, then an answer: five waits, one iteration, completed", async () => {
    const overloaded: FakeClaudeTurn = { outcome: "overloaded" };
    const { claude, clock, options } = await start([
      ...Array.from({ length: 5 }, () => overloaded),
      { structuredOutput: DONE },
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const events = await readRecordedEvents<WaitEvent>(outcome.runDir);
    const waits = waitsOf(events);
    expect(waits.map((wait) => wait.reason)).toEqual(Array(5).fill("overloaded"));
    expect(waits.every((wait) => wait.iteration === 1)).toBe(true);
    expect(waits.map((wait) => wait.waitMs)).toEqual(clock.sleeps);
    expect(clock.sleeps.every((waitMs) => waitMs > 0)).toBe(true);
    // Backing off: with the test clock's jitter-free random, each wait is longer than the last.
    expect(
      clock.sleeps.every((waitMs, index) => index === 0 || waitMs > (clock.sleeps[index - 1] ?? 0)),
    ).toBe(true);
    // The same query is asked again: neither an iteration nor a retry attempt is spent.
    const invocations = await claude.invocations();
    expect(invocations).toHaveLength(6);
    const prompts = new Set(invocations.map((invocation) => invocation.prompts.join("\n")));
    expect(prompts.size).toBe(1);
    expect(events.filter((event) => event.type === "retry-select")).toEqual([]);
    expect((await readRunState(outcome.runDir)).counters.failedChecks).toBe(0);
  });

  it("a 503, a reset and a refused connection are waited out with their reasons", async () => {
    const { clock, options } = await start([
      { outcome: "service_unavailable" },
      { outcome: "connection_reset" },
      { outcome: "connection_refused" },
      { structuredOutput: DONE },
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const waits = waitsOf(await readRecordedEvents<WaitEvent>(outcome.runDir));
    expect(waits.map((wait) => wait.reason)).toEqual(["server_error", "connection", "connection"]);
    expect(waits.map((wait) => wait.waitMs)).toEqual(clock.sleeps);
  });

  it("a 500 that outlasts the horizon ends the run in error with a resume hint; the resume goes on in the same iteration", async () => {
    const horizonMs = 10_000;
    const failing: FakeClaudeTurn = { outcome: "server_error" };
    // More failures than the horizon can use, so the horizon ends the run, not the script.
    const { claude, clock, options } = await start(
      Array.from({ length: 25 }, () => failing),
      horizonMs,
    );
    const runId = "run-api-down";
    const failed = await runTask({ ...options, runId });

    expect(failed).toMatchObject({ success: false, status: "error" });
    expect(failed.reason).toContain("500");
    expect(failed.reason).toContain(`--resume ${runId}`);
    const waits = waitsOf(await readRecordedEvents<WaitEvent>(failed.runDir));
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((wait) => wait.reason === "server_error")).toBe(true);
    const waitedMs = clock.sleeps.reduce((total, waitMs) => total + waitMs, 0);
    expect(waitedMs).toBeLessThanOrEqual(horizonMs);
    expect((await readRunState(failed.runDir)).status).toBe("error");
    const failedQueries = (await claude.invocations()).length;
    expect(failedQueries).toBe(waits.length + 1);

    // The API is back.
    await claude.script([{ structuredOutput: DONE }]);
    const resumed = await resumeRun({ ...options, resume: runId });

    expect(resumed).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const invocations = await claude.invocations();
    expect(invocations).toHaveLength(failedQueries + 1);
    expect(invocations.at(-1)?.prompts).toEqual(invocations[0]?.prompts);
    const iterations = (await readRecordedEvents<WaitEvent>(resumed.runDir))
      .filter((event) => event.type === "iteration-start")
      .map((event) => event.iteration);
    expect(new Set(iterations)).toEqual(new Set([1]));
  });
});

describe("a model API in trouble, through each agent CLI's fake", () => {
  let repo: FixtureRepo | undefined;
  let fake: FakeCliSetup | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    await fake?.cleanup();
    repo = undefined;
    fake = undefined;
  });

  const BACKENDS: Readonly<Record<string, { cli: FakeCliName; config: Record<string, unknown> }>> =
    {
      "claude-cli": {
        cli: "claude",
        config: { kind: "claude-cli", permissionMode: "bypassPermissions" },
      },
      codex: { cli: "codex", config: { kind: "codex", command: [fakeCliPath("codex")] } },
      opencode: {
        cli: "opencode",
        config: { kind: "opencode", command: [fakeCliPath("opencode")] },
      },
    };

  async function start(kind: string, turns: readonly FakeCliTurn[]) {
    const backend = BACKENDS[kind];
    if (backend === undefined) throw new Error(`no fake for ${kind}`);
    repo = await makeRepo(backend.config);
    fake = await setUpFakeCli();
    await fake.script(turns);
    // The CLI processes inherit closer's environment: that is where the fakes find their script.
    for (const [name, value] of Object.entries(fake.env)) vi.stubEnv(name, value);
    const { clock, options } = await fixerRunOptions(repo, {
      CLOSER_CLAUDE_PATH: fakeCliPath("claude"),
    });
    return { fake, clock, options };
  }

  it.each(Object.keys(BACKENDS))(
    "%s: a 503, a reset and a refused connection are waited out, then the same iteration completes",
    async (kind) => {
      const { fake, clock, options } = await start(kind, [
        { fail: "server_error" },
        { fail: "connection_reset" },
        { fail: "connection_refused" },
        { structuredOutput: DONE },
      ]);
      const outcome = await runTask(options);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      const events = await readRecordedEvents<WaitEvent>(outcome.runDir);
      const waits = waitsOf(events);
      expect(waits.map((wait) => wait.reason)).toEqual([
        "server_error",
        "connection",
        "connection",
      ]);
      expect(waits.every((wait) => wait.iteration === 1)).toBe(true);
      expect(waits.map((wait) => wait.waitMs)).toEqual(clock.sleeps);
      const calls = await fake.log();
      expect(calls).toHaveLength(4);
      expect(calls.every((call) => call.stdin.includes("Add zeta"))).toBe(true);
      expect(events.filter((event) => event.type === "retry-select")).toEqual([]);
      expect((await readRunState(outcome.runDir)).counters.failedChecks).toBe(0);
    },
  );

  it("opencode: the Retry-After of a 503 is honoured", async () => {
    const { clock, options } = await start("opencode", [
      { fail: "server_error", retryAfterSeconds: 42 },
      { structuredOutput: DONE },
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "completed", iterations: 1 });
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(42_000);
  });
});
