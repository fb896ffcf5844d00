import { applyCliOverrides } from "../../../src/definition/apply-cli-overrides.js";
import { loadAgent } from "../../../src/definition/load-agent.js";
import { runAgent } from "../../../src/loop/index.js";
import type { ResolvedAgent } from "../../../src/ports/agent.js";
import type { Backend } from "../../../src/ports/backend.js";
import type {
  EventListener,
  RunEvent,
  RunEventOf,
  RunEventType,
} from "../../../src/ports/events.js";
import { type AgentRunOptions, resolveRunSettings } from "../../../src/run/index.js";
import type { AgentFixture, FixtureRepo } from "../../../src/testing/index.js";
import { makeFixtureRepo, makeTestClock } from "../../../src/testing/index.js";
import {
  makeTestAgent,
  makeTestsPassValidator,
  TEST_FAILED_PATTERN,
  type TestAgentOptions,
} from "../../support/test-agent.js";

/** A tiny JS project whose `node --test` fails until `add` adds. */
export const BROKEN_PROJECT: Readonly<Record<string, string>> = {
  "package.json": `${JSON.stringify({ name: "fixture", type: "module", private: true })}\n`,
  ".gitignore": ".closer/\n",
  "src/add.js": "export function add(left, right) {\n  return left - right;\n}\n",
  "test/add.test.js": [
    'import assert from "node:assert/strict";',
    'import { test } from "node:test";',
    'import { add } from "../src/add.js";',
    "",
    'test("adds two numbers", () => {',
    "  assert.equal(add(2, 3), 5);",
    "});",
    "",
    'test("adds zero", () => {',
    "  assert.equal(add(7, 0), 7);",
    "});",
    "",
  ].join("\n"),
};

export const FIXED_ADD = "export function add(left, right) {\n  return left + right;\n}\n";

/** The same project with the bug fixed. */
export const FIXED_PROJECT: Readonly<Record<string, string>> = {
  ...BROKEN_PROJECT,
  "src/add.js": FIXED_ADD,
};

/** The tests' command as a model weakens it: the tests still run and report, their failure no longer fails the check. */
export const WEAKENED_COMMAND = "node --test || true";

/** The shell command an agent uses to commit its work. */
export const COMMIT_ALL = "git add --all && git commit --quiet -m work";

/** The task agent's options: any part of the test agent. */
export type TaskAgentOptions = TestAgentOptions;

const TASK_PROMPTS: Readonly<Record<string, string>> = {
  "system.md": "You are a careful engineer.\n",
  "steps/initial/task/f_default.md":
    "# Task: {{task.title}}\n\n{{task.body}}\n\nIteration {{iteration}} of {{maxIterations}}.\n",
  "steps/continuation/task/f_default.md": "# Continue: {{task.title}}\n\n{{previousSummary}}\n",
  "steps/retry/task/f_failed_test-failed.md": [
    "---",
    "params:",
    "  - failedTests",
    "  - errorOutput",
    "---",
    "## Tests are failing",
    "{{#each failedTests}}",
    "- `{{this.name}}`",
    "{{/each}}",
    "",
    "{{previousSummary}}",
    "",
  ].join("\n"),
  "steps/retry/task/f_failed_git-dirty.md": [
    "## Uncommitted changes",
    "{{#each changedFiles}}",
    "- changed: {{this}}",
    "{{/each}}",
    "{{#each untrackedFiles}}",
    "- untracked: {{this}}",
    "{{/each}}",
    "",
  ].join("\n"),
  "steps/complete/task/f_default.md":
    "Review your work on {{task.title}} as a checklist. Answer allComplete, checklist, pendingActions.\n",
};

/**
 * An agent for a written task: `initial.task` → `continuation.task`, both
 * completing against `complete.task` (git clean, then `node --test`).
 */
export function makeTaskAgent(options: TaskAgentOptions = {}): AgentFixture {
  return makeTestAgent({
    ...options,
    name: "tasker",
    c3: "task",
    agent: { description: "works on a written task", ...options.agent },
    runner: {
      maxIterations: 6,
      budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 30_000 },
      ...options.runner,
    },
    patterns: {
      "test-failed": TEST_FAILED_PATTERN,
      "slow-check": { description: "a check that hung", params: [] },
      ...options.patterns,
    },
    validators: { "tests-pass": makeTestsPassValidator("node --test"), ...options.validators },
    conditions: options.conditions ?? ["git-clean", "tests-pass"],
    completionStep: { onFailure: { action: "retry", maxAttempts: 3 }, ...options.completionStep },
    prompts: { ...TASK_PROMPTS, ...options.prompts },
  });
}

export const TASK = {
  kind: "text",
  title: "make add() add",
  body: "The add function subtracts. Make the tests pass and commit.",
} as const;

/** Structured outputs the scripted model answers with. */
export const DONE = {
  status: "completed",
  summary: "fixed add",
  next_action: { action: "complete", reason: "tests pass" },
};
export const WORKING = {
  status: "in_progress",
  summary: "still working",
  next_action: { action: "continue", reason: "not done" },
};

/** A fixture repository holding the project and the agent, and the agent loaded from it. */
export async function makeTaskRepo(
  options: TaskAgentOptions & { files?: Readonly<Record<string, string>> } = {},
): Promise<{ repo: FixtureRepo; agent: ResolvedAgent }> {
  const repo = await makeFixtureRepo({
    files: options.files ?? BROKEN_PROJECT,
    agents: [makeTaskAgent(options)],
  });
  return { repo, agent: await loadAgent("tasker", { cwd: repo.dir }) };
}

/** Collects events for assertions. */
export function makeEventLog(): {
  listener: EventListener;
  events: RunEvent[];
  of<T extends RunEventType>(type: T): RunEventOf<T>[];
} {
  const events: RunEvent[] = [];
  return {
    events,
    listener: (event) => {
      events.push(event);
    },
    of: <T extends RunEventType>(type: T) =>
      events.filter((event): event is RunEventOf<T> => event.type === type),
  };
}

/** Runs the task agent in a fixture repository with a test clock and an event log. */
export async function runTask(
  setup: { repo: FixtureRepo; agent: ResolvedAgent },
  backend: Backend,
  { maxIterations, ...options }: Partial<AgentRunOptions> & { maxIterations?: number } = {},
) {
  const log = makeEventLog();
  const clock = makeTestClock();
  const settings = await resolveRunSettings({
    agent:
      maxIterations === undefined ? setup.agent : applyCliOverrides(setup.agent, { maxIterations }),
    backend,
    cwd: setup.repo.dir,
    task: TASK,
    clock,
    onEvent: log.listener,
    ...options,
  });
  const result = await runAgent(settings);
  return { result, log, clock };
}
