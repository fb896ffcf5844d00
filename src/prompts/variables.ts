import type { ParameterDefinition } from "../ports/agent.js";
import type { IterationSummary, TaskInfo } from "../ports/run-state.js";

/** Names the runner supplies to every template (agent parameters come on top). */
export const RUNNER_VARIABLES: readonly string[] = [
  "iteration",
  "maxIterations",
  "runId",
  "checkId",
  "previousSummary",
  "task",
  "dirtyAtStart",
];

/** Names supplied to closure review templates on top of the runner's (docs/completion.md#closure-review). */
export const REVIEW_VARIABLES: readonly string[] = ["baseline", "changes", "checks", "declaration"];

/** Names supplied to retry templates on top of the runner's and the extracted params. */
export const RETRY_VARIABLES: readonly string[] = [
  "pattern",
  "attempt",
  "failureDetails",
  "refutedClaims",
  "otherFailures",
];

/** Fields of the `task` variable. */
export const TASK_FIELDS: readonly string[] = [
  "kind",
  "title",
  "body",
  "url",
  "issueNumber",
  "labels",
  "comments",
];

/** What a retry prompt is about: the failure pattern and what its validator extracted. */
export interface RetryVariablesInput {
  readonly pattern: string;
  /** 1-based count of consecutive failed checks this retry answers. */
  readonly attempt: number;
  readonly params: Readonly<Record<string, unknown>>;
  /** What else the same check found, as text (docs/retry.md#also-found); "" when nothing. */
  readonly otherFailures?: string;
}

export interface VariablesInput {
  /** Agent parameter values (from the CLI or the library call). */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Declared parameters: each gets a key (given value, else default, else "") so strict templates can read it. */
  readonly parameterDefinitions?: Readonly<Record<string, ParameterDefinition>>;
  readonly iteration: number;
  readonly maxIterations: number;
  readonly runId: string;
  /** The id of the current completion check; "" before any check. */
  readonly checkId: string;
  readonly previousSummary?: IterationSummary;
  readonly task: TaskInfo;
  /** Files with uncommitted changes before the run (the baseline's); not the model's to delete. */
  readonly dirtyAtStart?: readonly string[];
  readonly retry?: RetryVariablesInput;
}

/** The one function that assembles the variables object every template is rendered from. */
export function makeVariables(input: VariablesInput): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(input.parameterDefinitions ?? {})) {
    variables[name] = definition.default ?? "";
  }
  for (const [name, value] of Object.entries(input.parameters)) {
    if (value !== undefined) variables[name] = value;
  }
  Object.assign(variables, {
    iteration: input.iteration,
    maxIterations: input.maxIterations,
    runId: input.runId,
    checkId: input.checkId,
    previousSummary: renderIterationSummary(input.previousSummary),
    task: {
      kind: input.task.kind,
      title: input.task.title,
      body: input.task.body,
      url: input.task.url ?? "",
      issueNumber: input.task.issueNumber ?? "",
      labels: input.task.labels ?? [],
      comments: input.task.comments ?? [],
    },
    dirtyAtStart: [...(input.dirtyAtStart ?? [])],
  });
  if (input.retry) {
    Object.assign(variables, input.retry.params, {
      pattern: input.retry.pattern,
      attempt: input.retry.attempt,
      failureDetails: renderParams(input.retry.params),
      otherFailures: input.retry.otherFailures ?? "",
    });
  }
  return variables;
}

/**
 * Plain-text account of the previous iteration: what the model declared, then what the harness
 * found, so the model sees the gap between its claim and the facts. "" before the first iteration.
 */
export function renderIterationSummary(summary: IterationSummary | undefined): string {
  if (summary === undefined) return "";
  const declared: string[] = [];
  if (summary.status !== undefined) declared.push(`- status: ${summary.status}`);
  if (summary.nextAction !== undefined) declared.push(`- next action: ${summary.nextAction}`);
  if (summary.reason !== undefined) declared.push(`- reason: ${summary.reason}`);
  if (summary.summary !== undefined) declared.push(`- summary: ${summary.summary}`);
  if (summary.toolsUsed.length > 0) declared.push(`- tools used: ${summary.toolsUsed.join(", ")}`);
  if (declared.length === 0) declared.push("- nothing (no structured output)");
  const found: string[] = [];
  if (summary.failedCheck) {
    const { validator, pattern, detail } = summary.failedCheck;
    found.push(
      `- the check "${validator}" failed (pattern "${pattern}")${detail ? `: ${detail}` : ""}`,
    );
  }
  for (const claim of summary.refutedClaims ?? []) found.push(`- ${claim}`);
  for (const error of summary.errors) found.push(`- error: ${error}`);
  if (found.length === 0) found.push("- no check failed");
  return [
    `In iteration ${summary.iteration} you reported:`,
    ...declared,
    "",
    "What closer found:",
    ...found,
  ].join("\n");
}

/** Plain-text rendering of extracted params, one block per param (used by generic retry texts). */
export function renderParams(params: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(params);
  if (entries.length === 0) return "(no details were extracted)";
  return entries.map(([name, value]) => `${name}:\n${indent(renderValue(value))}`).join("\n");
}

function renderValue(value: unknown): string {
  if (value === undefined || value === null || value === "") return "(none)";
  if (typeof value === "string") return value;
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "(none)";
    return value.map((item) => `- ${renderItem(item)}`).join("\n");
  }
  return renderItem(value);
}

function renderItem(item: unknown): string {
  if (item === null || typeof item !== "object") return String(item);
  return Object.entries(item)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(
      ([key, value]) =>
        `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`,
    )
    .join("; ");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
