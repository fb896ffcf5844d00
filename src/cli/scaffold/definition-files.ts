/** agent.json, steps_registry.json and the output schema of the scaffolded issue agent. */
import type { BackendKind } from "../../ports/runner-config.js";
import { evidenceProperties } from "./evidence-schema.js";
import {
  type BackendSettings,
  extractParamsOf,
  ROLE_SCAFFOLD,
  type ScaffoldPlan,
} from "./scaffold-plan.js";

/** The Claude backends take Claude Code's tool names and permission modes; other kinds their defaults. */
const CLAUDE_KINDS: readonly BackendKind[] = ["claude-sdk", "claude-cli"];

export function makeBackendConfig(
  kind: BackendKind,
  settings: BackendSettings = {},
): Record<string, unknown> {
  if (!CLAUDE_KINDS.includes(kind)) return { kind, ...settings, session: "continue" };
  return {
    kind,
    ...settings,
    allowedTools: ["Read", "Write", "Edit", "Glob", "Grep", "Bash"],
    disallowedTools: ["Bash(gh issue close:*)", "Bash(gh api:*)"],
    permissionMode: "acceptEdits",
    session: "continue",
  };
}

function describeAgent(plan: ScaffoldPlan): string {
  const until = plan.checks.some((check) => check.role === "test")
    ? "until the working tree is clean and the project's checks pass."
    : "until the working tree is clean.";
  return `Works on a GitHub issue or a written task ${until}`;
}

export function makeAgentJson(name: string, plan: ScaffoldPlan): unknown {
  return {
    ...(plan.schemas.agent === undefined ? {} : { $schema: plan.schemas.agent }),
    name,
    description: describeAgent(plan),
    parameters: {
      issue: {
        type: "number",
        required: false,
        flag: "--issue",
        description: "GitHub issue number to work on (or give --task instead).",
      },
    },
    runner: {
      backend: makeBackendConfig(plan.backend, plan.backendSettings),
      ...(plan.setup === undefined || plan.setup.length === 0
        ? {}
        : { setup: plan.setup.map((finding) => finding.command) }),
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

/** The patterns and validators of the plan's checks, besides git-clean. */
function checkDefinitions(plan: ScaffoldPlan) {
  const patterns: Record<string, unknown> = {};
  const validators: Record<string, unknown> = {};
  for (const check of plan.checks) {
    const role = ROLE_SCAFFOLD[check.role];
    const extractParams = extractParamsOf(check);
    patterns[role.pattern] = {
      description: role.description,
      edition: "failed",
      adaptation: role.pattern,
      params: Object.keys(extractParams),
    };
    validators[role.validator] = {
      type: "command",
      command: check.command,
      successWhen: "exitCode:0",
      ...(check.role === "test" ? { timeoutMs: 600_000 } : {}),
      failurePattern: role.pattern,
      extractParams,
    };
  }
  return { patterns, validators };
}

export function makeRegistryJson(name: string, plan: ScaffoldPlan): unknown {
  const { patterns, validators } = checkDefinitions(plan);
  const conditions = [
    "git-clean",
    ...plan.checks.map((check) => ROLE_SCAFFOLD[check.role].validator),
  ];
  return {
    ...(plan.schemas.registry === undefined ? {} : { $schema: plan.schemas.registry }),
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
      ...patterns,
    },
    validators: {
      "git-clean": {
        type: "command",
        command: "git status --porcelain",
        successWhen: "empty",
        failurePattern: "git-dirty",
        extractParams: { changedFiles: "parseChangedFiles", untrackedFiles: "parseUntrackedFiles" },
      },
      ...validators,
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
        completionConditions: conditions.map((validator) => ({ validator })),
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

export function makeIssueSchemaJson(plan: ScaffoldPlan): unknown {
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
          ...(plan.withEvidence === true ? evidenceProperties(plan) : {}),
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
