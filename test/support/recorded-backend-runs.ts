/**
 * The corpus's run of each backend kind (docs/replay.md#corpus): the same
 * task through each backend's protocol-faithful double — the agent CLIs'
 * fakes, the loopback OpenAI-compatible endpoint, a session file of the
 * `replay` kind. The model claims done before the fix (the tests refute it),
 * then fixes `add()`, commits and declares done again: `completed`.
 */
import { delimiter, dirname } from "node:path";
import { loadAgent } from "../../src/definition/load-agent.js";
import { runTask } from "../../src/run/index.js";
import { type AgentFixture, makeFixtureRepo, makeTestClock } from "../../src/testing/index.js";
import {
  type FakeCliName,
  type FakeCliTurn,
  fakeCliPath,
  setUpFakeCli,
} from "../doubles/fake-cli/fake-cli-harness.js";
import { type ScriptStep, startOpenaiServer } from "../doubles/openai-server/openai-server.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskAgent,
  TASK,
  WORKING,
} from "../scenarios/support/task-agent.js";
import { type RecordedRunRecipe, runIdOf } from "./recorded-run-recipe.js";

const SANDBOX_OFF = { mode: "off" };
const BUDGETS = { queryTimeoutMs: 20_000, validatorTimeoutMs: 30_000 };

/** Runs the task agent with `backend` in a fresh repository; fails unless it completes. */
async function recordCompleted(
  name: string,
  runsDir: string,
  setup: {
    readonly backend: Record<string, unknown>;
    readonly env?: Readonly<Record<string, string>>;
    readonly agent?: Partial<AgentFixture>;
  },
): Promise<string> {
  const runId = runIdOf(name);
  const fixture = makeTaskAgent({
    runner: {
      backend: setup.backend,
      sandbox: SANDBOX_OFF,
      budgets: BUDGETS,
      env: { backend: ["FAKE_CLI_*"] },
    },
  });
  const repo = await makeFixtureRepo({
    files: BROKEN_PROJECT,
    agents: [{ ...fixture, ...setup.agent }],
  });
  try {
    const outcome = await runTask({
      agent: await loadAgent("tasker", { cwd: repo.dir }),
      cwd: repo.dir,
      task: TASK,
      runsDir,
      runId,
      clock: makeTestClock(),
      env: { ...process.env, ...setup.env },
    });
    if (outcome.status !== "completed") throw new Error(`${name}: ${outcome.reason}`);
  } finally {
    await repo.cleanup();
  }
  return runId;
}

/** The fix as a shell command (a fake CLI runs its commands before it writes its files). */
const FIX_COMMAND = `node -e 'const fs = require("node:fs"); fs.writeFileSync("src/add.js", ${JSON.stringify(FIXED_ADD)})' && ${COMMIT_ALL}`;

/** The fake CLI's turns: a claim refuted by the tests, then the fix, committed. */
const CLI_TURNS: readonly FakeCliTurn[] = [
  { structuredOutput: DONE, sessionId: "session-1", costUsd: 0.01 },
  {
    commands: [FIX_COMMAND],
    structuredOutput: DONE,
    sessionId: "session-1",
    costUsd: 0.02,
  },
];

/** The command's answers: its text, and a usage line that is not part of it (docs/backends.md#command-usage). */
const COMMAND_TURNS: readonly FakeCliTurn[] = CLI_TURNS.map((turn, index) => ({
  ...turn,
  text: `${JSON.stringify(DONE)}\n${JSON.stringify({ usage: { inputTokens: 100, outputTokens: 20 }, costUsd: 0.01 * (index + 1) })}`,
}));

function fakeCliRun(
  name: string,
  cli: FakeCliName,
  backend: Record<string, unknown>,
  turns: readonly FakeCliTurn[] = CLI_TURNS,
): RecordedRunRecipe {
  return {
    name,
    status: "completed",
    async record(runsDir) {
      const fake = await setUpFakeCli();
      try {
        await fake.script(turns);
        return await recordCompleted(name, runsDir, {
          backend,
          // The fake is found on PATH, as the real CLI is: the recorded agent.json names no folder of this machine.
          env: {
            ...fake.env,
            CLOSER_CLAUDE_PATH: fakeCliPath(cli),
            PATH: `${dirname(fakeCliPath(cli))}${delimiter}${process.env.PATH ?? ""}`,
          },
        });
      } finally {
        await fake.cleanup();
      }
    },
  };
}

const EDIT_CALL = {
  name: "edit",
  arguments: { path: "src/add.js", old_string: "left - right", new_string: "left + right" },
};
const COMMIT_CALL = { name: "bash", arguments: { command: COMMIT_ALL } };

/**
 * In `json-schema` mode: an answer outside the schema (undecidable), a claim
 * (refuted), then the fix in a query that runs out of its two steps while it
 * says it is still working (a `max_turns` answer the loop reads), and a claim
 * that holds. In `tool` mode: a text instead of the answer tool, a claim
 * through the answer tool, then the fix and the claim that holds.
 */
function openaiScript(mode: "json-schema" | "tool"): readonly ScriptStep[] {
  if (mode === "tool") {
    const answer: ScriptStep = { toolCalls: [{ name: "answer", arguments: DONE }] };
    return [
      { text: "I will look at src/add.js first." },
      answer,
      { toolCalls: [EDIT_CALL] },
      { toolCalls: [COMMIT_CALL] },
      answer,
    ];
  }
  const answer: ScriptStep = { text: JSON.stringify(DONE) };
  return [
    { text: JSON.stringify({ status: 42 }) },
    answer,
    { toolCalls: [EDIT_CALL] },
    { text: JSON.stringify(WORKING), toolCalls: [COMMIT_CALL] },
    answer,
  ];
}

function openaiRun(name: string, mode: "json-schema" | "tool"): RecordedRunRecipe {
  return {
    name,
    status: "completed",
    async record(runsDir) {
      const server = await startOpenaiServer();
      try {
        server.script(openaiScript(mode));
        return await recordCompleted(name, runsDir, {
          backend: {
            kind: "openai-compatible",
            baseURL: server.baseURL,
            model: "fake-coder",
            structuredOutput: mode,
            ...(mode === "json-schema" ? { maxSteps: 2 } : {}),
          },
        });
      } finally {
        await server.close();
      }
    },
  };
}

const REPLAY_SESSION = {
  version: 1,
  turns: [
    { structuredOutput: DONE, costUsd: 0.01 },
    {
      files: { "src/add.js": FIXED_ADD },
      commands: [COMMIT_ALL],
      structuredOutput: DONE,
      costUsd: 0.02,
    },
  ],
};

const replayKindRun: RecordedRunRecipe = {
  name: "replay-kind",
  status: "completed",
  async record(runsDir) {
    return await recordCompleted("replay-kind", runsDir, {
      backend: { kind: "replay", replayFrom: "recorded/session.json" },
      agent: { files: { "recorded/session.json": `${JSON.stringify(REPLAY_SESSION)}\n` } },
    });
  },
};

/** One run per backend kind besides `scripted` and `claude-sdk` (the corpus's other runs). */
export const BACKEND_RUNS: readonly RecordedRunRecipe[] = [
  fakeCliRun("claude-cli", "claude", { kind: "claude-cli", permissionMode: "bypassPermissions" }),
  fakeCliRun("codex", "codex", { kind: "codex", command: ["codex"] }),
  fakeCliRun("opencode", "opencode", { kind: "opencode", command: ["opencode"] }),
  fakeCliRun(
    "command",
    "agent-command",
    { kind: "command", command: ["agent-command"] },
    COMMAND_TURNS,
  ),
  openaiRun("openai-compatible", "json-schema"),
  openaiRun("answer-tool", "tool"),
  replayKindRun,
];
