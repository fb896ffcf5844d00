/**
 * The one agent the tests build: `initial.<c3>` → `continuation.<c3>`, both
 * completing against `complete.<c3>`, which passes when the working tree is
 * clean. Every part can be replaced or extended; the flavours in the test
 * folders (a task agent, an issue agent, CLI agents) are this agent with
 * other parts.
 */
import type { AgentFixture } from "../../src/testing/index.js";

type Json = Record<string, unknown>;

/** The check that the working tree is clean. */
export const GIT_CLEAN_VALIDATOR = {
  type: "command",
  command: "git status --porcelain",
  successWhen: "empty",
  failurePattern: "git-dirty",
  extractParams: { changedFiles: "parseChangedFiles", untrackedFiles: "parseUntrackedFiles" },
};

/** What a dirty working tree is reported as. */
export const GIT_DIRTY_PATTERN = {
  description: "uncommitted changes",
  edition: "failed",
  adaptation: "git-dirty",
  params: ["changedFiles", "untrackedFiles"],
};

/** What failing tests are reported as. */
export const TEST_FAILED_PATTERN = {
  description: "tests fail",
  edition: "failed",
  adaptation: "test-failed",
  params: ["failedTests", "errorOutput"],
};

/** The check that `command` runs the tests and they pass. */
export function makeTestsPassValidator(command: string) {
  return {
    type: "command",
    command,
    successWhen: "exitCode:0",
    failurePattern: "test-failed",
    extractParams: { failedTests: "parseTestOutput", errorOutput: "stderr" },
  };
}

/** The output schema of the work steps: a status, a summary and a next action. */
export const STEP_SCHEMA = {
  type: "object",
  required: ["status"],
  properties: {
    status: { type: "string", enum: ["in_progress", "completed"] },
    summary: { type: "string" },
    next_action: {
      type: "object",
      properties: { action: { type: "string" }, reason: { type: "string" } },
    },
  },
};

export interface TestAgentOptions {
  /** The agent's name and folder; default `tasker`. */
  readonly name?: string;
  /** The c3 word of the steps and their prompt folders; default `task`. */
  readonly c3?: string;
  /** agent.json fields beside `name` and `runner` (description, parameters). */
  readonly agent?: Json;
  /** Replaces fields of the runner (scripted backend, 4 iterations, 20 s budgets). */
  readonly runner?: Json;
  /** Extra or replaced failure patterns (default: `git-dirty`). */
  readonly patterns?: Json;
  /** Extra or replaced validators (default: `git-clean`). */
  readonly validators?: Json;
  /** Validators of the completion step, in order; default `git-clean`. */
  readonly conditions?: readonly string[];
  /** Replaces fields of the initial and the continuation step. */
  readonly steps?: { readonly initial?: Json; readonly continuation?: Json };
  /** Replaces the completion step's fields (onFailure, responseFormat, closureReview, …). */
  readonly completionStep?: Json;
  /** Steps without an output schema, as for a backend that answers in text. */
  readonly textOnly?: boolean;
  /** Extra or replaced top-level registry keys (e.g. `completionSignal`). */
  readonly registry?: Json;
  /** Extra or replaced prompt templates (`steps/…/f_default.md` → text). */
  readonly prompts?: Readonly<Record<string, string>>;
  /** Extra schema files (`closure.schema.json` → its content). */
  readonly schemas?: Json;
}

/** The agent folder of a test agent, for `makeFixtureRepo` or `writeAgent`. */
export function makeTestAgent(options: TestAgentOptions = {}): AgentFixture {
  const name = options.name ?? "tasker";
  const c3 = options.c3 ?? "task";
  const schemaFile = `${c3}.schema.json`;
  const schemaRef = options.textOnly
    ? {}
    : { outputSchemaRef: { file: schemaFile, schema: "step" } };
  return {
    name,
    agent: {
      name,
      description: "a test agent",
      ...options.agent,
      runner: {
        backend: { kind: "scripted" },
        maxIterations: 4,
        budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 20_000 },
        ...options.runner,
      },
    },
    registry: {
      c1: "steps",
      entryStep: `initial.${c3}`,
      completionPatterns: { "git-dirty": GIT_DIRTY_PATTERN, ...options.patterns },
      validators: { "git-clean": GIT_CLEAN_VALIDATOR, ...options.validators },
      steps: {
        [`initial.${c3}`]: {
          c2: "initial",
          c3,
          ...schemaRef,
          next: `continuation.${c3}`,
          completionStep: `complete.${c3}`,
          ...options.steps?.initial,
        },
        [`continuation.${c3}`]: {
          c2: "continuation",
          c3,
          ...schemaRef,
          completionStep: `complete.${c3}`,
          ...options.steps?.continuation,
        },
      },
      completionSteps: {
        [`complete.${c3}`]: {
          c2: "retry",
          c3,
          completionConditions: (options.conditions ?? ["git-clean"]).map((validator) => ({
            validator,
          })),
          onFailure: { action: "retry", maxAttempts: 2 },
          ...options.completionStep,
        },
      },
      ...options.registry,
    },
    schemas: { [schemaFile]: { step: STEP_SCHEMA }, ...options.schemas },
    prompts: {
      [`steps/initial/${c3}/f_default.md`]: "# {{task.title}}\n\n{{task.body}}\n",
      [`steps/continuation/${c3}/f_default.md`]:
        "# Continue {{task.title}}\n\n{{previousSummary}}\n",
      ...options.prompts,
    },
  };
}
