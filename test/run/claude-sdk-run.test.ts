import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { readRunState } from "../../src/record/run-record.js";
import { resumeRun, runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import {
  type FakeClaude,
  type FakeClaudeTurn,
  makeFakeClaude,
} from "../doubles/fake-claude/make-fake-claude.js";
import { liveMarkedProcesses, waitFor } from "../doubles/fake-claude/process-liveness.js";
import { fakeClaudeRunOptions } from "./support/fake-claude-run.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";

/**
 * Whole runs of the loop with the claude-sdk backend, made from agent.json by
 * the run itself: the real Claude Agent SDK drives the fake Claude Code
 * executable (CLOSER_CLAUDE_PATH), so every prompt, option and failure goes
 * through the SDK's protocol.
 */

const WORKING = {
  status: "in_progress",
  summary: "looked around",
  next_action: { action: "continue", reason: "not done yet" },
};

interface SdkAgentOptions {
  readonly session?: "continue" | "fresh";
  /** The continuation step's own model. */
  readonly continuationModel?: string;
  /** The completion step wants a JSON answer with `status` (a format check). */
  readonly responseFormat?: boolean;
  readonly queryTimeoutMs?: number;
}

async function makeSdkRepo(options: SdkAgentOptions = {}): Promise<FixtureRepo> {
  const fixture = makeIssueAgent({
    runner: {
      backend: {
        kind: "claude-sdk",
        model: "claude-agent-model",
        permissionMode: "bypassPermissions",
        session: options.session ?? "continue",
      },
      maxIterations: 4,
      // The fake Claude Code finds its script through these (docs/backends.md#environment).
      env: { backend: ["FAKE_CLAUDE_*"] },
      budgets: { queryTimeoutMs: options.queryTimeoutMs ?? 20_000, validatorTimeoutMs: 20_000 },
    },
    steps: options.continuationModel ? { continuation: { model: options.continuationModel } } : {},
    completionStep: options.responseFormat
      ? { responseFormat: { type: "json", requiredFields: ["status"] }, maxFormatRetries: 2 }
      : {},
  });
  return makeFixtureRepo({ files: PROJECT, agents: [fixture] });
}

/** The model writes zeta.txt, commits it, and declares done. */
function doneTurn(dir: string, extra: Partial<FakeClaudeTurn> = {}): FakeClaudeTurn {
  return {
    actions: [
      { tool: "Write", input: { file_path: join(dir, "zeta.txt"), content: "zeta\n" } },
      { tool: "Bash", input: { command: "git add --all && git commit --quiet -m zeta" } },
    ],
    structuredOutput: DONE,
    ...extra,
  };
}

describe("whole runs with the claude-sdk backend through the SDK and a fake Claude Code", () => {
  let repo: FixtureRepo | undefined;
  let claude: FakeClaude | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    await claude?.cleanup();
    repo = undefined;
    claude = undefined;
  });

  async function start(agentOptions: SdkAgentOptions, turns: readonly FakeClaudeTurn[]) {
    repo = await makeSdkRepo(agentOptions);
    claude = await makeFakeClaude();
    await claude.script(turns);
    const { clock, options } = await fakeClaudeRunOptions(repo, claude);
    return { repo, claude, clock, options };
  }

  it("two 429s, then an answer: the same iteration is repeated after the waits and completes", async () => {
    const { repo, claude, clock, options } = await start({}, []);
    const startedAtMs = Date.now();
    const resetsAtS = Math.ceil(startedAtMs / 1000) + 90;
    await claude.script([
      { outcome: "rate_limit", resetsAt: resetsAtS },
      { outcome: "rate_limit" },
      doneTurn(repo.dir),
    ]);
    const outcome = await runTask(options);
    const endedAtMs = Date.now();

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const invocations = await claude.invocations();
    expect(invocations).toHaveLength(3);
    expect(new Set(invocations.map((invocation) => invocation.prompts.join()))).toHaveProperty(
      "size",
      1,
    );
    // The first wait honours the reset time the API gave; the second backs off exponentially.
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(resetsAtS * 1000 - endedAtMs);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(resetsAtS * 1000 - startedAtMs);
    expect(clock.sleeps[1]).toBeGreaterThan(0);
    const state = await readRunState(outcome.runDir);
    expect(state.counters.failedChecks).toBe(0);
  });

  it("a structured output that is missing gets a format-error retry, then the run completes", async () => {
    const { repo, claude, options } = await start({ responseFormat: true }, []);
    await claude.script([
      { text: "I added the file.\nCOMPLETE" },
      doneTurn(repo.dir, { text: "Done, as JSON this time." }),
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    const [first, second] = await claude.invocations();
    expect(first?.options.jsonSchema).toBeDefined();
    expect(second?.prompts.join("\n")).toContain("format-error");
    const events = (await readFile(join(outcome.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; valid?: boolean; kind?: string });
    expect(events.filter((event) => event.type === "format-check").map((e) => e.valid)).toEqual([
      false,
      true,
    ]);
    expect(events.find((event) => event.type === "prompt" && event.kind === "format-retry")).toBe(
      events.filter((event) => event.type === "prompt")[1],
    );
  });

  it("a step's own model reaches Claude Code; other steps get the agent's", async () => {
    const { repo, claude, options } = await start({ continuationModel: "claude-step-model" }, []);
    await claude.script([{ structuredOutput: WORKING }, doneTurn(repo.dir)]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "completed", iterations: 2 });
    const models = (await claude.invocations()).map((invocation) => invocation.options.model);
    expect(models).toEqual(["claude-agent-model", "claude-step-model"]);
  });

  it("under session continue the second iteration resumes the first one's session", async () => {
    const { repo, claude, options } = await start({ session: "continue" }, []);
    await claude.script([{ structuredOutput: WORKING }, doneTurn(repo.dir)]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "completed", iterations: 2 });
    const [first, second] = await claude.invocations();
    expect(first?.options.resume).toBeUndefined();
    expect(second?.options.resume).toBe(first?.turns[0]?.sessionId);
    expect(second?.turns[0]?.sessionId).toBe(first?.turns[0]?.sessionId);
  });

  it("under session fresh every iteration starts a new session", async () => {
    const { repo, claude, options } = await start({ session: "fresh" }, []);
    await claude.script([{ structuredOutput: WORKING }, doneTurn(repo.dir)]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "completed", iterations: 2 });
    const [first, second] = await claude.invocations();
    expect([first?.options.resume, second?.options.resume]).toEqual([undefined, undefined]);
    expect(second?.turns[0]?.sessionId).not.toBe(first?.turns[0]?.sessionId);
  });

  it("a session Claude Code no longer knows is replaced by a new one that gets the summary", async () => {
    const { repo, claude, options } = await start({}, []);
    await claude.script([{ structuredOutput: WORKING }]);
    const once = applyCliOverrides(options.agent, { maxIterations: 1 });
    const first = await runTask({ ...options, agent: once, runId: "run-expired" });
    expect(first).toMatchObject({ status: "max_iterations" });
    // Claude Code forgot every session (e.g. its transcripts were cleared).
    await writeFile(claude.env.FAKE_CLAUDE_STATE ?? "", JSON.stringify({ sessions: {} }));
    await claude.script([doneTurn(repo.dir)]);
    const resumed = await resumeRun({
      ...options,
      agent: applyCliOverrides(options.agent, { maxIterations: 2 }),
      resume: "run-expired",
    });

    expect(resumed).toMatchObject({ status: "completed", iterations: 2 });
    const invocations = await claude.invocations();
    const firstSession = invocations[0]?.turns[0]?.sessionId;
    expect(invocations.map((invocation) => invocation.options.resume)).toEqual([
      undefined,
      firstSession,
      undefined,
    ]);
    expect(invocations[2]?.prompts.join("\n")).toContain("looked around");
  });

  it("Ctrl-C during a query ends the run aborted, keeps the record and leaves no process", async () => {
    const { claude, options } = await start({}, [{ outcome: "hang" }]);
    const controller = new AbortController();
    const pending = runTask({ ...options, signal: controller.signal });
    const started = await waitFor(async () => {
      const [invocation] = await claude.invocations();
      return (invocation?.childPids.length ?? 0) > 0;
    }, 20_000);
    expect(started).toBe(true);
    controller.abort();
    const outcome = await pending;

    expect(outcome.status).toBe("aborted");
    expect((await readRunState(outcome.runDir)).status).toBe("aborted");
    const [invocation] = await claude.invocations();
    expect(invocation?.mark).not.toBe("");
    expect(await liveMarkedProcesses([invocation?.mark ?? ""])).toEqual([]);
  });

  it("a query past its timeout is stopped with its processes, repeated, then ends the run", async () => {
    // Long enough for a loaded machine to start the fake's child before the timeout ends it.
    const { claude, options } = await start({ queryTimeoutMs: 1_500 }, [
      { outcome: "hang" },
      { outcome: "hang" },
      { outcome: "hang" },
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "error", iterations: 1 });
    expect(outcome.reason).toContain("timeout");
    const invocations = await claude.invocations();
    expect(invocations).toHaveLength(3);
    const pids = invocations.flatMap((invocation) => [invocation.pid, ...invocation.childPids]);
    expect(pids).toHaveLength(6);
    expect(await liveMarkedProcesses(invocations.map((invocation) => invocation.mark))).toEqual([]);
  });

  it("closer run exits 3 with how to log in when Claude Code rejects the login", async () => {
    const { claude } = await start({}, [{ outcome: "auth" }]);
    vi.stubEnv("CLOSER_CLAUDE_PATH", claude.executablePath);
    for (const [name, value] of Object.entries(claude.env)) vi.stubEnv(name, value);
    const dir = repo?.dir ?? "";

    const quiet = await cli("run", "fixer", "--task", "t", "--cwd", dir, "--no-worktree", "--json");
    expect(quiet.code).toBe(3);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ success: false, status: "error" });
    expect(JSON.parse(quiet.stdout).reason).toContain("claude /login");

    await claude.script([{ outcome: "auth" }]);
    const spoken = await cli("run", "fixer", "--task", "t", "--cwd", dir, "--no-worktree");
    expect(spoken.code).toBe(3);
    expect(spoken.stderr).toContain("authentication failed");
    expect(spoken.stderr).toContain("claude /login");
    expect(spoken.stderr).toContain("ANTHROPIC_API_KEY");
  });

  it("a Write or Edit of the agent folder is denied up front by the hook; the file stays as it was", async () => {
    const { repo, claude, options } = await start({}, []);
    const registry = join(repo.dir, ".agent", "fixer", "steps_registry.json");
    const before = await readFile(registry, "utf8");
    await claude.script([
      {
        actions: [
          { tool: "Write", input: { file_path: registry, content: "{}\n" } },
          {
            tool: "Edit",
            input: { file_path: ".agent/fixer/agent.json", old_string: "fixer", new_string: "x" },
          },
        ],
        structuredOutput: WORKING,
      },
      doneTurn(repo.dir),
    ]);
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ success: true, status: "completed", refutedDeclarations: 0 });
    expect(await readFile(registry, "utf8")).toBe(before);
    const [first] = await claude.invocations();
    const denied = first?.permissions.filter((permission) => permission.behavior === "deny");
    expect(denied?.map((permission) => [permission.tool, permission.via])).toEqual([
      ["Write", "hook"],
      ["Edit", "hook"],
    ]);
    expect(denied?.[0]?.message).toContain("is protected");
  });
});
