/** agent.json, steps_registry.json and the output schema of the scaffolded issue agent. */

const EXTRACT_OUTPUT = { errorOutput: "output" } as const;

export function makeAgentJson(name: string): unknown {
  return {
    $schema: "../../node_modules/closer/schemas/agent.schema.json",
    name,
    description:
      "Works on a GitHub issue or a written task until the working tree is clean and the tests pass.",
    parameters: {
      issue: {
        type: "number",
        required: false,
        flag: "--issue",
        description: "GitHub issue number to work on (or give --task instead).",
      },
    },
    runner: {
      backend: {
        kind: "claude-sdk",
        allowedTools: ["Read", "Write", "Edit", "Glob", "Grep", "Bash"],
        disallowedTools: ["Bash(gh issue close:*)", "Bash(gh api:*)"],
        permissionMode: "acceptEdits",
        session: "continue",
      },
      systemPrompt: "prompts/system.md",
      registry: "steps_registry.json",
      maxIterations: 20,
      budgets: { queryTimeoutMs: 1_800_000, validatorTimeoutMs: 600_000 },
      worktree: {
        enabled: false,
        root: ".closer/worktrees",
        branch: "closer/issue-{issue}",
        onSuccess: "merge",
        autoCommit: false,
      },
      github: {
        labels: { add: ["done"], remove: ["in-progress"] },
        closeAction: "label-and-close",
        completionComment: true,
      },
    },
  };
}

export function makeRegistryJson(name: string): unknown {
  return {
    $schema: "../../node_modules/closer/schemas/steps_registry.schema.json",
    agentId: name,
    c1: "steps",
    entryStep: "initial.issue",
    completionSignal: { status: ["completed"], action: ["complete", "closing"] },
    completionPatterns: {
      "git-dirty": {
        description: "uncommitted or untracked changes",
        edition: "failed",
        adaptation: "git-dirty",
        params: ["changedFiles", "untrackedFiles"],
      },
      "test-failed": {
        description: "the test suite fails",
        edition: "failed",
        adaptation: "test-failed",
        params: ["failedTests", "errorOutput"],
      },
      "type-error": {
        description: "the type check fails",
        edition: "failed",
        adaptation: "type-error",
        params: ["typeErrors", "errorOutput"],
      },
      "lint-error": {
        description: "the linter reports problems",
        edition: "failed",
        adaptation: "lint-error",
        params: ["lintErrors", "errorOutput"],
      },
      unformatted: {
        description: "files are not formatted (uses the generic f_failed.md)",
        edition: "failed",
        adaptation: "unformatted",
        params: ["errorOutput"],
      },
    },
    validators: {
      "git-clean": {
        type: "command",
        command: "git status --porcelain",
        successWhen: "empty",
        failurePattern: "git-dirty",
        extractParams: { changedFiles: "parseChangedFiles", untrackedFiles: "parseUntrackedFiles" },
      },
      "tests-pass": {
        type: "command",
        command: "npm test",
        successWhen: "exitCode:0",
        timeoutMs: 600_000,
        failurePattern: "test-failed",
        extractParams: { failedTests: "parseTestOutput", ...EXTRACT_OUTPUT },
      },
      "type-check": {
        type: "command",
        command: "npx tsc --noEmit",
        successWhen: "exitCode:0",
        failurePattern: "type-error",
        extractParams: { typeErrors: "parseTypeErrors", ...EXTRACT_OUTPUT },
      },
      lint: {
        type: "command",
        command: "npx eslint .",
        successWhen: "exitCode:0",
        failurePattern: "lint-error",
        extractParams: { lintErrors: "parseLintErrors", ...EXTRACT_OUTPUT },
      },
      "format-check": {
        type: "command",
        command: "npx prettier --check .",
        successWhen: "exitCode:0",
        failurePattern: "unformatted",
        extractParams: { ...EXTRACT_OUTPUT },
      },
    },
    steps: {
      "initial.issue": {
        name: "Start",
        c2: "initial",
        c3: "issue",
        edition: "default",
        outputSchemaRef: { file: "issue.schema.json", schema: "initial.issue" },
        next: "continuation.issue",
        completionStep: "complete.issue",
      },
      "continuation.issue": {
        name: "Continue",
        c2: "continuation",
        c3: "issue",
        edition: "default",
        outputSchemaRef: { file: "issue.schema.json", schema: "continuation.issue" },
        completionStep: "complete.issue",
      },
    },
    completionSteps: {
      "complete.issue": {
        name: "Issue complete",
        c2: "retry",
        c3: "issue",
        responseFormat: { type: "json", requiredFields: ["status", "summary", "next_action"] },
        completionConditions: [{ validator: "git-clean" }, { validator: "tests-pass" }],
        closureReview: { c2: "complete", c3: "issue" },
        onFailure: { action: "retry", maxAttempts: 3 },
      },
    },
  };
}

function nextAction(actions: readonly string[]): unknown {
  return {
    type: "object",
    description: "What should happen next, and why.",
    required: ["action", "reason"],
    properties: {
      action: {
        type: "string",
        enum: actions,
        description: "complete: ask closer to verify the work; continue: keep working.",
      },
      reason: { type: "string", description: "Why, in a sentence." },
    },
  };
}

export function makeIssueSchemaJson(): unknown {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: {
      stepResponse: {
        type: "object",
        required: ["status", "summary", "next_action"],
        properties: {
          status: {
            type: "string",
            enum: ["in_progress", "completed", "blocked"],
            description: "completed only when the work is done, committed and tested.",
          },
          summary: { type: "string", description: "What was done in this iteration." },
          next_action: nextAction(["continue", "complete", "closing"]),
        },
      },
    },
    "initial.issue": {
      description:
        "The first answer: the model may not ask to close yet, only to have its work checked.",
      allOf: [
        { $ref: "#/$defs/stepResponse" },
        { properties: { next_action: nextAction(["continue", "complete"]) } },
      ],
    },
    "continuation.issue": { allOf: [{ $ref: "#/$defs/stepResponse" }] },
  };
}
