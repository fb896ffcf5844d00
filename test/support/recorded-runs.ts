/**
 * The corpus of recorded runs (docs/replay.md#corpus): real runs of `runTask`
 * in temp git repositories, the model scripted, git and the checks real. Each
 * ends in another way; `scripts/record-corpus.ts` writes their run folders
 * into `test/fixtures/recorded-runs/<name>/`.
 */
import { cp, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { loadAgent } from "../../src/definition/load-agent.js";
import type { BackendRequest } from "../../src/ports/backend.js";
import { type RunOutcome, resumeRun, runTask } from "../../src/run/index.js";
import {
  makeFixtureRepo,
  makeScriptedBackend,
  makeTestClock,
  type ScriptedStep,
  scriptedError,
} from "../../src/testing/index.js";
import { makeFakeClaude } from "../doubles/fake-claude/make-fake-claude.js";
import { makeIssueAgent, PROJECT } from "../run/support/issue-repo.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  FIXED_PROJECT,
  makeTaskAgent,
  TASK,
  type TaskAgentOptions,
  WORKING,
} from "../scenarios/support/task-agent.js";
import { BACKEND_RUNS } from "./recorded-backend-runs.js";
import { type RecordedRunRecipe, runIdOf } from "./recorded-run-recipe.js";

export type { RecordedRunRecipe } from "./recorded-run-recipe.js";

/** Where the corpus lives, relative to the project folder. */
export const CORPUS_DIR = "test/fixtures/recorded-runs";

const FIX_TURN: ScriptedStep = {
  files: { "src/add.js": FIXED_ADD },
  commands: [COMMIT_ALL],
  structuredOutput: DONE,
  costUsd: 0.02,
};
const CLAIM_TURN: ScriptedStep = { structuredOutput: DONE, costUsd: 0.01 };
const SANDBOX_OFF = { sandbox: { mode: "off" } };

async function recordTask(
  runsDir: string,
  agent: TaskAgentOptions & { files?: Readonly<Record<string, string>> },
  steps: readonly ScriptedStep[],
  extra: { signal?: AbortSignal; runId: string } = { runId: "" },
): Promise<RunOutcome> {
  const { files, ...agentOptions } = agent;
  const repo = await makeFixtureRepo({
    files: files ?? BROKEN_PROJECT,
    agents: [
      makeTaskAgent({ ...agentOptions, runner: { ...SANDBOX_OFF, ...agentOptions.runner } }),
    ],
  });
  try {
    return await runTask({
      agent: await loadAgent("tasker", { cwd: repo.dir }),
      cwd: repo.dir,
      task: TASK,
      backend: makeScriptedBackend(steps),
      runsDir,
      runId: extra.runId,
      clock: makeTestClock(),
      ...(extra.signal === undefined ? {} : { signal: extra.signal }),
    });
  } finally {
    await repo.cleanup();
  }
}

function simple(
  name: string,
  status: string,
  agent: TaskAgentOptions & { files?: Readonly<Record<string, string>> },
  steps: (controller: AbortController) => readonly ScriptedStep[],
): RecordedRunRecipe {
  return {
    name,
    status,
    async record(runsDir) {
      const controller = new AbortController();
      await recordTask(runsDir, agent, steps(controller), {
        runId: runIdOf(name),
        signal: controller.signal,
      });
      return runIdOf(name);
    },
  };
}

const REVIEW_PROMPT =
  "Review the work on {{task.title}}.\n{{declaration}}\n{{checks}}\nTESTS:\n{{changes.tests}}\n";

function reviewer(request: BackendRequest) {
  const rejectIt = request.prompt.includes("-1);");
  return {
    structuredOutput: rejectIt
      ? {
          allComplete: false,
          checklist: [{ item: "the tests still check add()", done: false, evidence: "-1" }],
          pendingActions: ["restore test/add.test.js: the expected value was changed to -1"],
        }
      : { allComplete: true, checklist: [], pendingActions: [] },
    costUsd: 0.05,
  };
}

/** The model declares completion through the decision file only (docs/completion.md#decision-file). */
function declareInFile(work: {
  files?: Record<string, string>;
  commands?: string[];
}): ScriptedStep {
  return {
    ...work,
    act: async (request) => {
      const decision = {
        decision: "complete",
        check_id: request.env.CLOSER_CHECK_ID,
        reasons: ["done"],
      };
      await writeFile(request.env.CLOSER_DECISION_FILE ?? "", `${JSON.stringify(decision)}\n`);
    },
    text: "Declared in the decision file.",
    costUsd: 0.01,
  };
}

const ORIGINAL_TEST = BROKEN_PROJECT["test/add.test.js"] ?? "";
const WEAKENED_TEST = ORIGINAL_TEST.replace(
  "assert.equal(add(2, 3), 5);",
  "assert.equal(add(2, 3), -1);",
);

export const RECORDED_RUNS: readonly RecordedRunRecipe[] = [
  simple(
    "completed-after-retries",
    "completed",
    {
      completionStep: {
        responseFormat: { type: "json", requiredFields: ["status"] },
        maxFormatRetries: 2,
      },
    },
    () => [
      { text: "I looked at add.js.", costUsd: 0.01 },
      CLAIM_TURN,
      { error: scriptedError("rate_limit", { retryAfterMs: 1_000 }) },
      FIX_TURN,
    ],
  ),
  simple("max-iterations", "max_iterations", { runner: { maxIterations: 2 } }, () => [
    CLAIM_TURN,
    CLAIM_TURN,
  ]),
  simple("retries-exhausted", "retries_exhausted", {}, () => [CLAIM_TURN, CLAIM_TURN, CLAIM_TURN]),
  simple(
    "budget-exhausted",
    "budget_exhausted",
    { files: FIXED_PROJECT, runner: { budgets: { maxCostUsd: 0.05 } } },
    () => Array.from({ length: 4 }, () => ({ structuredOutput: WORKING, costUsd: 0.03 })),
  ),
  simple("aborted", "aborted", {}, (controller) => [
    { structuredOutput: WORKING, costUsd: 0.01 },
    { structuredOutput: WORKING, costUsd: 0.01, act: () => controller.abort() },
  ]),
  simple("blocked", "blocked", {}, () => [
    { structuredOutput: WORKING, costUsd: 0.01 },
    {
      structuredOutput: {
        status: "in_progress",
        summary: "cannot go on",
        next_action: { action: "blocked", reason: "the task contradicts the tests" },
      },
      costUsd: 0.01,
    },
  ]),
  simple(
    "error-undecidable",
    "error",
    { files: FIXED_PROJECT, runner: { maxUndecidable: 1 } },
    () => [{ text: "hmm" }, { text: "still thinking" }],
  ),
  simple(
    "closure-review",
    "completed",
    {
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
      prompts: { "steps/complete/task/f_default.md": REVIEW_PROMPT },
    },
    (): ScriptedStep[] => [
      {
        files: { "test/add.test.js": WEAKENED_TEST },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      },
      reviewer,
      {
        files: { "test/add.test.js": ORIGINAL_TEST, "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      },
      reviewer,
    ],
  ),
  simple(
    "format-retry",
    "completed",
    {
      files: FIXED_PROJECT,
      completionStep: {
        responseFormat: { type: "json", requiredFields: ["status"] },
        maxFormatRetries: 2,
      },
    },
    () => [{ text: "The tests pass.\nCOMPLETE", costUsd: 0.01 }, CLAIM_TURN],
  ),
  simple("decision-file", "completed", {}, () => [
    declareInFile({}),
    declareInFile({ files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL] }),
  ]),
  {
    name: "resumed",
    status: "completed",
    async record(runsDir) {
      const runId = runIdOf("resumed");
      const repo = await makeFixtureRepo({
        files: BROKEN_PROJECT,
        agents: [makeTaskAgent({ runner: { ...SANDBOX_OFF, maxIterations: 2 } })],
      });
      try {
        const agent = await loadAgent("tasker", { cwd: repo.dir });
        const base = { cwd: repo.dir, runsDir, clock: makeTestClock() };
        const first = await runTask({
          ...base,
          agent,
          task: TASK,
          runId,
          backend: makeScriptedBackend([CLAIM_TURN, { structuredOutput: WORKING }]),
        });
        if (first.status !== "max_iterations") throw new Error(`resumed: ${first.status}`);
        await resumeRun({
          ...base,
          agent: applyCliOverrides(agent, { maxIterations: 3 }),
          resume: runId,
          backend: makeScriptedBackend([FIX_TURN]),
        });
      } finally {
        await repo.cleanup();
      }
      return runId;
    },
  },
  {
    name: "fake-claude",
    status: "completed",
    async record(runsDir) {
      const runId = runIdOf("fake-claude");
      const fixture = makeIssueAgent({
        parameters: {},
        initialPrompt: "# {{task.title}}\n\n{{task.body}}\n",
        runner: {
          ...SANDBOX_OFF,
          backend: {
            kind: "claude-sdk",
            model: "claude-agent-model",
            permissionMode: "bypassPermissions",
          },
          maxIterations: 3,
          env: { backend: ["FAKE_CLAUDE_*"] },
          budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 20_000 },
        },
      });
      const repo = await makeFixtureRepo({ files: PROJECT, agents: [fixture] });
      const claude = await makeFakeClaude();
      try {
        await claude.script([
          { structuredOutput: { status: "in_progress", summary: "looked around" } },
          {
            actions: [
              {
                tool: "Write",
                input: { file_path: join(repo.dir, "zeta.txt"), content: "zeta\n" },
              },
              { tool: "Bash", input: { command: "git add --all && git commit --quiet -m zeta" } },
            ],
            structuredOutput: DONE,
          },
        ]);
        const outcome = await runTask({
          agent: await loadAgent("fixer", { cwd: repo.dir }),
          cwd: repo.dir,
          task: { kind: "text", title: "Add zeta", body: "Add zeta.txt and commit it." },
          runsDir,
          runId,
          clock: makeTestClock(),
          env: { ...process.env, CLOSER_CLAUDE_PATH: claude.executablePath, ...claude.env },
        });
        if (outcome.status !== "completed") throw new Error(`fake-claude: ${outcome.reason}`);
      } finally {
        await repo.cleanup();
        await claude.cleanup();
      }
      return runId;
    },
  },
  ...BACKEND_RUNS,
];

/** Records every run of the corpus into `<target>/<name>/`, replacing what was there. */
export async function recordCorpus(target: string, only?: readonly string[]): Promise<string[]> {
  const written: string[] = [];
  for (const recipe of RECORDED_RUNS) {
    if (only !== undefined && only.length > 0 && !only.includes(recipe.name)) continue;
    const runsDir = await realpath(await mkdtemp(join(tmpdir(), "closer-corpus-")));
    try {
      const runId = await recipe.record(runsDir);
      const destination = join(target, recipe.name);
      await rm(destination, { recursive: true, force: true });
      await cp(join(runsDir, runId), destination, { recursive: true });
      written.push(recipe.name);
    } finally {
      await rm(runsDir, { recursive: true, force: true });
    }
  }
  return written;
}
