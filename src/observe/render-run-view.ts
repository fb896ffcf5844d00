import { formatCost, formatDuration, formatStarted, lastLines, shorten } from "./format-run.js";
import type {
  CheckView,
  IterationView,
  Receipt,
  RunView,
  SetupView,
  ToolCallView,
} from "./run-view.js";
import { toolCallOutcome, toolCallText } from "./tool-call-text.js";

/** Lines of a guard's detail or a review's pending actions `closer show` prints. */
const OUTPUT_LINES = 12;

/** How a text is styled on a terminal that takes colour. */
export type Paint = (style: "bold" | "dim" | "green" | "red" | "yellow", text: string) => string;

const CODES = { bold: [1, 22], dim: [2, 22], green: [32, 39], red: [31, 39], yellow: [33, 39] };

export const COLOR: Paint = (style, text) => {
  const [on, off] = CODES[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
};

export const PLAIN: Paint = (_style, text) => text;

/**
 * `closer show` (docs/observe.md#show): the task, the baseline, each iteration as
 * a block, the end, and the totals by reason.
 */
export function renderRunView(view: RunView, paint: Paint = PLAIN): string {
  const mark = (valid: boolean) => (valid ? paint("green", "✓") : paint("red", "✗"));
  const out: string[] = [];
  const ended =
    view.status === "completed" ? paint("green", view.status) : paint("red", view.status);
  out.push(
    paint("bold", `Run ${view.runId}`) +
      ` · ${view.agent} · ${view.status === "running" ? paint("yellow", "running") : ended}` +
      (view.reason === "" ? "" : ` — ${view.reason}`),
  );
  out.push(
    `Started ${formatStarted(view.startedAt)} · ${formatDuration(view.durationMs)} · ` +
      `${view.iterations} iteration(s) · ${view.attempts} attempt(s) · ${formatCost(view.costUsd)}`,
  );
  out.push(paint("dim", view.runDir));
  if (view.worktree) {
    const { path, branch, baseBranch } = view.worktree;
    out.push(`Worktree ${path} (branch ${branch} from ${baseBranch})`);
  }
  out.push("", paint("bold", "Task"), `  ${view.task.title}${issueOf(view)}`);
  for (const line of lastLines(view.task.body, 6).split("\n")) {
    if (line.trim() !== "") out.push(`  ${paint("dim", line)}`);
  }
  if (view.setup.length > 0) {
    out.push(
      "",
      paint("bold", "Setup"),
      ...view.setup.flatMap((command) => renderSetup(command, paint)),
    );
  }
  if (view.baseline) {
    const { commit, checks, dirtyFiles, protectedFiles } = view.baseline;
    out.push(
      "",
      paint("bold", "Baseline") +
        ` ${commit === undefined ? "" : `at ${commit.slice(0, 12)} · `}${protectedFiles} protected file(s) · ` +
        `dirty: ${dirtyFiles.length === 0 ? "none" : dirtyFiles.join(", ")}`,
    );
    for (const check of checks) {
      const time = check.durationMs === undefined ? "" : ` ${formatDuration(check.durationMs)}`;
      const tests = check.tests === undefined ? "" : ` (${check.tests} tests)`;
      out.push(`  ${mark(check.valid)} ${check.validator}${tests}${time}`);
    }
  }
  for (const iteration of view.timeline) out.push("", ...renderIteration(iteration, view, paint));
  out.push("", ...renderEnd(view, paint), "", ...renderTotals(view, paint));
  return `${out.join("\n")}\n`;
}

function issueOf(view: RunView): string {
  if (view.task.issueNumber === undefined) return "";
  return ` (issue #${view.task.issueNumber}${view.task.url === undefined ? "" : ` ${view.task.url}`})`;
}

function renderIteration(iteration: IterationView, view: RunView, paint: Paint): string[] {
  const mark = (valid: boolean) => (valid ? paint("green", "✓") : paint("red", "✗"));
  const attempt = view.attempts > 1 ? ` · attempt ${iteration.attempt}` : "";
  const out = [
    `${paint("bold", `Iteration ${iteration.iteration}`)} · ${iteration.step}${attempt}`,
  ];
  const { prompt, declaration, format, retry } = iteration;
  if (prompt) {
    out.push(
      `  prompt    ${prompt.kind} · ${prompt.templatePath} · ${prompt.chars} chars ${paint("dim", prompt.file)}`,
    );
  }
  for (const receipt of iteration.receipts) out.push(`  query     ${describeReceipt(receipt)}`);
  out.push(...renderToolCalls(iteration.toolCalls, paint));
  if (declaration) {
    const said = [declaration.status, declaration.reason, declaration.blockedReason]
      .filter((part) => part !== undefined && part !== "")
      .join(" · ");
    out.push(
      `  declared  ${declaration.decision} via ${declaration.source}${said === "" ? "" : ` (${said})`}`,
    );
    for (const claim of declaration.refutedClaims ?? []) out.push(`  refuted   ${claim}`);
  }
  if (format) {
    out.push(
      `  ${mark(format.valid)} format${format.error === undefined ? "" : `: ${format.error}`}`,
    );
  }
  for (const check of iteration.checks) out.push(...renderCheck(check, mark, paint));
  if (retry) {
    out.push(
      `  retry     ${retry.pattern} → ${retry.templatePath} (attempt ${retry.attempt}/${retry.maxAttempts})`,
    );
  }
  for (const warning of iteration.warnings)
    out.push(`  ${paint("yellow", "warning")}   ${warning}`);
  return out;
}

/** The calls `closer show` lists of an iteration; `--json` has them all. */
const SHOWN_TOOL_CALLS = 12;

/** The model's tool calls (docs/observe.md#tool-calls): how many, then each, the first few. */
function renderToolCalls(calls: readonly ToolCallView[], paint: Paint): string[] {
  if (calls.length === 0) return [];
  const failed = calls.filter((call) => toolCallOutcome(call).bad).length;
  const out = [
    `  tools     ${calls.length} call${calls.length === 1 ? "" : "s"}${failed === 0 ? "" : ` · ${failed} failed`}`,
  ];
  for (const call of calls.slice(0, SHOWN_TOOL_CALLS)) {
    const outcome = toolCallOutcome(call);
    const said =
      outcome.text === "" ? "" : ` · ${outcome.bad ? paint("red", outcome.text) : outcome.text}`;
    out.push(`            ${toolCallText(call)}${said}`);
  }
  if (calls.length > SHOWN_TOOL_CALLS) {
    out.push(
      paint(
        "dim",
        `            … and ${calls.length - SHOWN_TOOL_CALLS} more (closer show --json lists them)`,
      ),
    );
  }
  return out;
}

function describeReceipt(receipt: Receipt): string {
  const error = receipt.error === undefined ? "" : ` · error ${receipt.error}`;
  return `${receipt.reason} · ${formatDuration(receipt.durationMs)} · ${formatCost(receipt.costUsd)}${error}`;
}

function renderCheck(check: CheckView, mark: (valid: boolean) => string, paint: Paint): string[] {
  const facts = [
    check.pattern,
    check.cached === true ? "cached" : undefined,
    check.durationMs === undefined || check.cached === true
      ? undefined
      : formatDuration(check.durationMs),
    check.exitCode === undefined ? undefined : `exit ${check.exitCode}`,
  ].filter((fact) => fact !== undefined);
  const out = [
    `  ${mark(check.valid)} ${check.kind} ${check.name}${facts.length === 0 ? "" : ` (${facts.join(", ")})`}`,
  ];
  // A validator is quoted by its meaningful lines (docs/completion.md#quoted-output); a guard's
  // detail and a review's pending actions are the check's own words.
  if (check.kind === "validator") out.push(...quote(check.quoted ?? [], paint));
  else if (check.output !== undefined) {
    out.push(...quote(lastLines(check.output, OUTPUT_LINES).split("\n"), paint));
  }
  return out;
}

/** `✗ npm ci (exit 1, 12.3s)` and, for a failure, its meaningful lines. */
function renderSetup(command: SetupView, paint: Paint): string[] {
  const failed = command.exitCode !== 0 || command.timedOut === true;
  const facts = [
    command.timedOut === true ? "timed out" : undefined,
    `exit ${command.exitCode}`,
    formatDuration(command.durationMs),
  ].filter((fact) => fact !== undefined);
  const mark = failed ? paint("red", "✗") : paint("green", "✓");
  return [
    `  ${mark} ${command.command} (${facts.join(", ")})`,
    ...quote(command.quoted ?? [], paint),
  ];
}

function quote(lines: readonly string[], paint: Paint): string[] {
  return lines.map((line) => `      ${paint("dim", `| ${line}`)}`);
}

function renderEnd(view: RunView, paint: Paint): string[] {
  const { end } = view;
  const out = [
    `${paint("bold", "End")} ${end.status}${end.reason === "" ? "" : ` — ${end.reason}`}`,
  ];
  for (const effect of end.sideEffects) {
    const detail = effect.detail === undefined ? "" : ` — ${shorten(effect.detail, 120)}`;
    out.push(
      `  ${effect.ok ? paint("green", "✓") : paint("red", "✗")} ${effect.action} ${effect.target}${detail}`,
    );
  }
  if (end.refutedDeclarations > 0) out.push(`  refuted declarations: ${end.refutedDeclarations}`);
  for (const flaky of end.flaky) {
    out.push(`  flaky: ${flaky.validator} in iteration ${flaky.iteration}`);
  }
  for (const warning of end.warnings) out.push(`  ${paint("yellow", "warning")} ${warning}`);
  return out;
}

function renderTotals(view: RunView, paint: Paint): string[] {
  const out = [paint("bold", "Cost by reason")];
  if (view.costByReason.length === 0) return [...out, "  no queries"];
  const width = Math.max(...view.costByReason.map((total) => total.reason.length));
  for (const total of view.costByReason) {
    const { inputTokens, outputTokens } = total.usage;
    out.push(
      `  ${total.reason.padEnd(width)}  ${String(total.queries).padStart(3)} quer${total.queries === 1 ? "y  " : "ies"}` +
        `  ${formatCost(total.costUsd).padStart(9)}  ${formatDuration(total.durationMs).padStart(8)}` +
        `  ${inputTokens} in / ${outputTokens} out tokens`,
    );
  }
  out.push(
    `  ${"total".padEnd(width)}  ${String(view.receipts.length).padStart(3)} quer${view.receipts.length === 1 ? "y  " : "ies"}  ${formatCost(view.costUsd).padStart(9)}`,
  );
  return out;
}
