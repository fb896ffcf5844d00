import { reasonOfPrompt, repeatReason } from "../ports/receipt-reason.js";
import {
  type Json,
  num,
  obj,
  optionalNumber,
  optionalString,
  str,
  strings,
} from "../record/loose-json.js";
import { promptFile } from "../record/run-folder-reader.js";
import type {
  CheckView,
  EndView,
  IterationView,
  PromptView,
  Receipt,
  SetupView,
  ToolCallView,
} from "./run-view.js";
import { setupCommand } from "./setup-command.js";
import { NO_USAGE, usageOf } from "./token-usage.js";
import { validatorCheck } from "./validator-check.js";

interface MutableIteration {
  iteration: number;
  step: string;
  attempt: number;
  prompt?: PromptView;
  receipts: Receipt[];
  toolCalls: ToolCallView[];
  declaration?: IterationView["declaration"];
  format?: IterationView["format"];
  checks: CheckView[];
  retry?: IterationView["retry"];
  warnings: string[];
  /** The status of the iteration's completion signal, until its decision takes it. */
  signalStatus?: string;
}

export interface Folded {
  readonly setup: SetupView[];
  readonly timeline: IterationView[];
  readonly receipts: Receipt[];
  readonly attempts: number;
  readonly runEnd?: Json;
  readonly baselineEvent?: Json;
  readonly sideEffects: EndView["sideEffects"][number][];
  readonly warnings: string[];
  readonly refutedDeclarations: number;
}

/** What the walk over the events holds between one event and the next. */
interface Fold {
  readonly setup: SetupView[];
  readonly timeline: MutableIteration[];
  readonly receipts: Receipt[];
  readonly sideEffects: Folded["sideEffects"];
  readonly warnings: string[];
  attempts: number;
  runEnd?: Json;
  baselineEvent?: Json;
  refutedDeclarations: number;
  /** The pattern of the last retry chosen: the reason of the retry prompt that follows. */
  retryPattern?: string;
  /** The reason of the query the last prompt opened. */
  queryReason?: string;
  /** The error kind of the last answer to that query: the next answer is its repeat. */
  failedKind?: string;
  readonly runDir: string;
}

type Handler = (fold: Fold, event: Json, at: MutableIteration | undefined) => void | Promise<void>;

/** Walks the events once, in order, into iterations and receipts. */
export async function foldEvents(events: readonly Json[], runDir: string): Promise<Folded> {
  const fold: Fold = {
    setup: [],
    timeline: [],
    receipts: [],
    sideEffects: [],
    warnings: [],
    attempts: 0,
    refutedDeclarations: 0,
    runDir,
  };
  for (const event of events) {
    const handler = HANDLERS[String(event.type)];
    if (handler) await handler(fold, event, iterationOf(fold, event.iteration));
  }
  const { setup, timeline, receipts, attempts, runEnd, baselineEvent, sideEffects, warnings } =
    fold;
  return {
    setup,
    timeline: timeline.map(({ signalStatus: _, ...iteration }) => iteration),
    receipts,
    attempts,
    ...(runEnd === undefined ? {} : { runEnd }),
    ...(baselineEvent === undefined ? {} : { baselineEvent }),
    sideEffects,
    warnings,
    refutedDeclarations: fold.refutedDeclarations,
  };
}

/** The latest iteration of that number (a resume may repeat one). */
function iterationOf(fold: Fold, iteration: unknown): MutableIteration | undefined {
  const wanted = num(iteration);
  if (wanted === undefined) return undefined;
  return fold.timeline.findLast((entry) => entry.iteration === wanted);
}

const HANDLERS: Readonly<Record<string, Handler>> = {
  "run-start": (fold) => {
    fold.attempts++;
    fold.runEnd = undefined;
  },
  "run-end": (fold, event) => {
    fold.runEnd = event;
  },
  setup: async (fold, event) => {
    fold.setup.push(await setupCommand(event, fold.runDir));
  },
  baseline: (fold, event) => {
    fold.baselineEvent = event;
  },
  "iteration-start": (fold, event) => {
    fold.timeline.push({
      iteration: num(event.iteration) ?? 0,
      step: str(event.step) ?? "",
      attempt: Math.max(1, fold.attempts),
      receipts: [],
      toolCalls: [],
      checks: [],
      warnings: [],
    });
  },
  "tool-call": (_fold, event, at) => {
    at?.toolCalls.push({
      tool: str(event.tool) ?? "",
      action: str(event.action) ?? "other",
      target: str(event.target) ?? "",
      ...optionalNumber("exitCode", event.exitCode),
      failed: event.failed === true,
      ...optionalNumber("durationMs", event.durationMs),
    });
  },
  prompt: foldPrompt,
  "backend-end": foldBackendEnd,
  "completion-signal": (_fold, event, at) => {
    if (at) at.signalStatus = str(event.status);
  },
  decision: (_fold, event, at) => {
    if (!at) return;
    at.declaration = {
      decision: decisionOf(event.decision),
      source: str(event.source) ?? "none",
      ...(at.signalStatus === undefined ? {} : { status: at.signalStatus }),
      ...optionalString("reason", event.reason),
      ...optionalString("blockedReason", event.blockedReason),
      ...optionalString("summary", decisionFileSummary(event)),
    };
  },
  "format-check": (_fold, event, at) => {
    if (at) at.format = { valid: event.valid === true, ...optionalString("error", event.error) };
  },
  "validator-end": async (fold, event, at) => {
    at?.checks.push(await validatorCheck(event, fold.runDir));
  },
  guard: (_fold, event, at) => {
    at?.checks.push({
      kind: "guard",
      name: str(event.guard) ?? "guard",
      valid: event.valid === true,
      ...optionalString("output", event.detail),
    });
  },
  "closure-review": (_fold, event, at) => {
    const pending = strings(event.pendingActions) ?? [];
    at?.checks.push({
      kind: "closure-review",
      name: "closure-review",
      valid: event.allComplete === true,
      ...optionalNumber("durationMs", event.durationMs),
      ...(pending.length === 0 ? {} : { output: pending.join("\n") }),
    });
  },
  "retry-select": (fold, event, at) => {
    fold.retryPattern = str(event.pattern);
    if (!at) return;
    at.retry = {
      pattern: fold.retryPattern ?? "",
      templatePath: str(event.templatePath) ?? "",
      attempt: num(event.attempt) ?? 0,
      maxAttempts: num(event.maxAttempts) ?? 0,
    };
  },
  "declaration-refuted": (fold, event, at) => {
    fold.refutedDeclarations = num(event.refutedDeclarations) ?? fold.refutedDeclarations + 1;
    const claims = Array.isArray(event.claims) ? event.claims.filter(isString) : [];
    if (at?.declaration !== undefined && claims.length > 0) {
      at.declaration = { ...at.declaration, refutedClaims: claims };
    }
  },
  warning: (fold, event, at) => {
    const message = str(event.message) ?? "";
    fold.warnings.push(message);
    at?.warnings.push(message);
  },
  // A plugin's failure is shown with the warnings (docs/plugins.md#failures).
  "plugin-error": (fold, event, at) => {
    const message = `plugin "${str(event.plugin) ?? ""}" failed in ${str(event.where) ?? ""}: ${str(event.message) ?? ""}`;
    fold.warnings.push(message);
    at?.warnings.push(message);
  },
  "side-effect": (fold, event) => {
    fold.sideEffects.push({
      action: str(event.action) ?? "",
      target: str(event.target) ?? "",
      ok: event.ok === true,
      ...optionalString("detail", event.detail),
    });
  },
};

/** A prompt opens a query: its reason, and (but for a review's or completion's) the iteration's prompt. */
function foldPrompt(fold: Fold, event: Json, at: MutableIteration | undefined): void {
  const kind = promptKind(event.kind);
  const iteration = num(event.iteration) ?? 0;
  fold.queryReason = reasonOfPrompt({
    kind,
    iteration,
    ...(fold.retryPattern === undefined ? {} : { pattern: fold.retryPattern }),
  });
  fold.failedKind = undefined;
  if (kind === "closure-review" || kind === "completion" || !at) return;
  at.prompt = {
    kind,
    templatePath: str(event.templatePath) ?? "",
    chars: num(event.chars) ?? 0,
    file: promptFile(iteration),
  };
  fold.retryPattern = undefined;
}

/**
 * An answer is a receipt. Its reason is the one on record; a run recorded before
 * receipts gets it from the prompt before it, or as the repeat of a failed answer
 * to the same prompt (docs/observe.md#receipts).
 */
function foldBackendEnd(fold: Fold, event: Json, at: MutableIteration | undefined): void {
  const derived = fold.failedKind === undefined ? fold.queryReason : repeatReason(fold.failedKind);
  const error = str(obj(event.error)?.kind);
  fold.failedKind = error;
  const receipt: Receipt = {
    iteration: num(event.iteration) ?? 0,
    reason: str(event.reason) ?? derived ?? "unknown",
    durationMs: num(event.durationMs) ?? 0,
    costUsd: num(event.costUsd) ?? 0,
    usage: usageOf(event.usage) ?? NO_USAGE,
    ...(error === undefined ? {} : { error }),
  };
  fold.receipts.push(receipt);
  at?.receipts.push(receipt);
}

export function promptKind(value: unknown): PromptView["kind"] {
  return value === "retry" ||
    value === "format-retry" ||
    value === "closure-review" ||
    value === "completion"
    ? value
    : "step";
}

export function decisionOf(value: unknown): NonNullable<IterationView["declaration"]>["decision"] {
  return value === "complete" || value === "incomplete" || value === "blocked"
    ? value
    : "undecidable";
}

/** The `summary` of the decision file the declaration came through, when it gave one. */
function decisionFileSummary(event: Json): string | undefined {
  if (event.source !== "file") return undefined;
  const text = str(obj(obj(event.decisionFile)?.after)?.text);
  try {
    return str(obj(JSON.parse(text ?? ""))?.summary);
  } catch {
    return undefined;
  }
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}
