/**
 * The raw shape of agent.json. The same schema validates the file and generates
 * schemas/agent.schema.json, so the field docs below are what an editor shows on hover.
 */
import { z } from "zod";
import { BACKEND_KINDS } from "../ports/runner-config.js";
import {
  envSchema,
  loggingSchema,
  recordSchema,
  sandboxSchema,
} from "./agent-file-record-and-env.js";
import { insidePath } from "./inside-path.js";
import { openaiCompatibleKeys, requireEndpointKeys } from "./openai-compatible-keys.js";
import { WORD_PATTERN } from "./path-word.js";

/** Tools the backend may use when agent.json names none. */
const DEFAULT_ALLOWED_TOOLS = ["Read", "Write", "Edit", "Glob", "Grep", "Bash"] as const;

/** A parameter name doubles as a template variable and (by default) as the `--<name>` flag. */
const PARAMETER_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const FLAG_PATTERN = /^--[A-Za-z0-9][A-Za-z0-9-]*$/;

const parameterSchema = z
  .strictObject({
    type: z.enum(["string", "number", "boolean"]).describe("Type of the value."),
    required: z.boolean().default(false).describe("The run fails to start without it."),
    default: z
      .union([z.string(), z.number(), z.boolean()])
      .optional()
      .describe("Value when the flag is not given; must have the parameter's type."),
    flag: z
      .string()
      .refine((flag) => FLAG_PATTERN.test(flag), {
        error: (issue) => `${JSON.stringify(issue.input)} is not a flag like "--issue"`,
        params: { fix: 'write "--" and then letters, digits or "-", e.g. "--issue"' },
      })
      .meta({ pattern: FLAG_PATTERN.source })
      .optional()
      .describe("CLI flag the value is read from; default: --<name>."),
    description: z.string().default("").describe("Shown in the CLI help."),
  })
  .superRefine((parameter, context) => {
    if (parameter.default !== undefined && typeof parameter.default !== parameter.type) {
      context.addIssue({
        code: "custom",
        path: ["default"],
        message: `the default ${JSON.stringify(parameter.default)} is not a ${parameter.type}`,
        params: { fix: `give a ${parameter.type} default or change "type"` },
      });
    }
  })
  .describe("A CLI parameter; its value is a template variable of the same name.");

/** A backend's configuration: agent.json's `runner.backend`, and a closure review's `backend`. */
export const backendConfigSchema = z
  .strictObject({
    kind: z.enum(BACKEND_KINDS).default("claude-sdk").describe("What answers the prompts."),
    model: z.string().optional().describe("Model for every step; default: the backend's own."),
    allowedTools: z
      .array(z.string())
      .default([...DEFAULT_ALLOWED_TOOLS])
      .describe("Tools the model may use."),
    disallowedTools: z.array(z.string()).default([]).describe("Tools the model may never use."),
    permissionMode: z
      .enum(["acceptEdits", "default", "bypassPermissions", "plan", "dontAsk"])
      .default("acceptEdits")
      .describe("Claude Code permission mode."),
    session: z
      .enum(["continue", "fresh"])
      .default("continue")
      .describe("continue: one session across iterations; fresh: a new session each iteration."),
    claudePath: z
      .string()
      .min(1)
      .optional()
      .describe("Path of the Claude Code executable; CLOSER_CLAUDE_PATH wins over it."),
    command: z
      .array(z.string())
      .min(1)
      .optional()
      .describe("Executable and arguments, for the command backend (required there)."),
    readsOutputSchema: z
      .boolean()
      .optional()
      .describe(
        "The command backend's program answers in the schema it reads from CLOSER_OUTPUT_SCHEMA, so closer does not append the schema to the prompt.",
      ),
    replayFrom: insidePath("the agent folder", "recorded/session.json")
      .optional()
      .describe(
        "Recorded run folder or session file, relative to the agent folder and inside it (replay backend).",
      ),
    settingSources: z
      .array(z.enum(["user", "project", "local"]))
      .default([])
      .describe("Claude settings the SDK loads; empty for reproducible runs."),
    maxTurns: z.int().positive().optional().describe("Turns allowed in one backend query."),
    ...openaiCompatibleKeys,
    pricing: z
      .strictObject({
        inputPerMTok: z.number().nonnegative().describe("USD per million input tokens."),
        outputPerMTok: z.number().nonnegative().describe("USD per million output tokens."),
        cacheReadPerMTok: z
          .number()
          .nonnegative()
          .optional()
          .describe("USD per million cached input tokens read; default the input price."),
        cacheWritePerMTok: z
          .number()
          .nonnegative()
          .optional()
          .describe("USD per million tokens written to the cache; default the input price."),
      })
      .optional()
      .describe(
        "Price of the model's tokens, for codex, opencode, openai-compatible and command backends that report tokens but no cost; wins over closer's table of known models.",
      ),
    passGithubToken: z
      .boolean()
      .optional()
      .describe(
        "Give the backend's processes closer's GitHub tokens (GITHUB_TOKEN, GH_TOKEN, …); the model can then act on GitHub before verification. Default false.",
      ),
  })
  .superRefine((backend, context) => {
    const needed = { command: "command", replay: "replayFrom" } as const;
    const key = needed[backend.kind as keyof typeof needed];
    if (key !== undefined && backend[key] === undefined) {
      context.addIssue({
        code: "custom",
        path: [key],
        message: `the ${backend.kind} backend needs "${key}"`,
        params: { fix: `add "${key}" to runner.backend` },
      });
    }
    if (backend.kind === "openai-compatible") requireEndpointKeys(backend, context);
  });

const backendSchema = backendConfigSchema
  .prefault({})
  .describe("The backend and how it is allowed to work.");

const budgetsSchema = z
  .strictObject({
    maxCostUsd: z.number().positive().optional().describe("Stop when the run has cost this much."),
    maxWallTimeMs: z.int().positive().optional().describe("Stop after this much wall time."),
    queryTimeoutMs: z.int().positive().default(1_800_000).describe("Timeout of one backend query."),
    validatorTimeoutMs: z
      .int()
      .positive()
      .default(600_000)
      .describe("Timeout of a validator command that sets none."),
    transientWaitMs: z
      .int()
      .nonnegative()
      .default(900_000)
      .describe(
        "How long one query may wait out an overloaded or unreachable model API (529, 5xx, lost connections) before the run ends; within maxWallTimeMs.",
      ),
  })
  .prefault({})
  .describe("Limits of one run.");

const worktreeSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe("Run each issue in its own git worktree."),
    root: z
      .string()
      .min(1)
      .default(".closer/worktrees")
      .describe("Folder of closer's worktrees, relative to the repository root."),
    branch: z
      .string()
      .min(1)
      .default("closer/issue-{issue}")
      .describe("Branch of an issue run; {issue} is replaced by the issue number."),
    onSuccess: z
      .enum(["merge", "push", "keep"])
      .optional()
      .describe(
        'merge into the base branch, push (with a pull request), or keep the worktree. Unset: "merge", and "push" for a queued job or a --deliver run (the GitHub Action), where "merge" pushes the verified commit to origin\'s base branch.',
      ),
    autoCommit: z
      .boolean()
      .default(false)
      .describe("Commit leftover changes before the checks of an issue run."),
  })
  .prefault({})
  .describe("Git worktree per run.");

const gitSchema = z
  .strictObject({
    hooks: z
      .enum(["sandboxed", "skip"])
      .default("sandboxed")
      .describe(
        "The repository's hooks for closer's own git operations (push, merge, worktree add): run by closer in the validators' sandbox without credentials, or skipped.",
      ),
  })
  .prefault({})
  .describe("closer's own git operations.");

const githubSchema = z
  .strictObject({
    labels: z
      .strictObject({
        add: z.array(z.string()).default([]).describe("Labels added on completion."),
        remove: z.array(z.string()).default([]).describe("Labels removed on completion."),
      })
      .prefault({})
      .describe("Labels changed on verified completion."),
    closeAction: z
      .enum(["close", "label-only", "label-and-close"])
      .default("close")
      .describe("What happens to the issue on verified completion."),
    completionComment: z.boolean().default(true).describe("Comment on the issue on completion."),
    failureComment: z
      .boolean()
      .default(false)
      .describe("Comment on the issue when a run ends without completion."),
  })
  .prefault({})
  .describe("GitHub side effects, performed by closer after verified completion.");

const runnerSchema = z
  .strictObject({
    backend: backendSchema,
    setup: z
      .array(z.string().trim().min(1))
      .default([])
      .describe(
        "Commands that make a tree ready (install dependencies, generate code), run in order through /bin/sh -c in the tree of every new run, before its baseline and outside the sandbox.",
      ),
    setupTimeoutMs: z
      .int()
      .positive()
      .default(600_000)
      .describe("Timeout of each runner.setup command."),
    env: envSchema,
    systemPrompt: insidePath("the agent folder", "prompts/system.md")
      .default("prompts/system.md")
      .describe("System prompt file relative to the agent folder; a missing file adds none."),
    registry: insidePath("the agent folder", "steps_registry.json")
      .default("steps_registry.json")
      .describe("Steps registry file relative to the agent folder."),
    entryStep: z
      .string()
      .min(1)
      .optional()
      .describe("First step; overrides the registry's entryStep."),
    maxIterations: z.int().positive().default(20).describe("Iterations before max_iterations."),
    maxUndecidable: z
      .int()
      .positive()
      .default(3)
      .describe("Consecutive undecidable declarations before the run ends with error."),
    decisionFile: insidePath("the working tree", ".closer/decision.json")
      .optional()
      .describe(
        "Decision file the agent may write, relative to the working tree (kept out of git's status); default: decision.json in the run folder.",
      ),
    budgets: budgetsSchema,
    worktree: worktreeSchema,
    git: gitSchema,
    github: githubSchema,
    logging: loggingSchema,
    record: recordSchema,
    sandbox: sandboxSchema,
  })
  .prefault({})
  .describe("How the agent is run.");

/** The raw agent.json schema. */
export const agentFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe("JSON Schema of this file, for editors."),
    name: z
      .string()
      .regex(WORD_PATTERN)
      .describe("The agent's name; equals its folder name under .agent/."),
    description: z.string().default("").describe("One line shown by `closer list`."),
    parameters: z
      .record(z.string().regex(PARAMETER_NAME_PATTERN), parameterSchema)
      .default({})
      .describe("CLI parameters by name, e.g. issue."),
    runner: runnerSchema,
  })
  .meta({ title: "closer agent.json" })
  .describe("A closer agent: its name, CLI parameters and runner configuration.");

/** agent.json after validation and defaults, before normalization. */
export type AgentFile = z.output<typeof agentFileSchema>;
