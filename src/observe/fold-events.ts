import { RUN_FILES } from "../record/run-record.js";
import {
  type Json,
  num,
  obj,
  optionalNumber,
  optionalString,
  str,
  strings,
  sum,
} from "./loose-json.js";
import { reasonOfPrompt, repeatReason } from "./receipt-reason.js";
import type {
  CheckView,
  EndView,
  IterationView,
  PromptView,
  Receipt,
  TokenUsage,
} from "./run-view.js";
import { validatorCheck } from "./validator-check.js";

export interface MutableIteration {
  iteration: number;
  step: string;
  attempt: number;
  prompt?: PromptView;
  receipts: Receipt[];
  declaration?: IterationView["declaration"];
  format?: IterationView["format"];
  checks: CheckView[];
  retry?: IterationView["retry"];
  warnings: string[];
  signalStatus?: string;
}

export interface Folded {
  readonly timeline: IterationView[];
  readonly receipts: Receipt[];
  readonly attempts: number;
  readonly runEnd?: Json;
  readonly baselineEvent?: Json;
  readonly sideEffects: EndView["sideEffects"][number][];
  readonly warnings: string[];
  readonly refutedDeclarations: number;
}

/** Walks the events once, in order, into iterations and receipts. */
export async function foldEvents(events: readonly Json[], runDir: string): Promise<Folded> {
  const timeline: MutableIteration[] = [];
  const receipts: Receipt[] = [];
  const sideEffects: Folded["sideEffects"] = [];
  const warnings: string[] = [];
  let attempts = 0;
  let runEnd: Json | undefined;
  let baselineEvent: Json | undefined;
  let refutedDeclarations = 0;
  let retryPattern: string | undefined;
  let queryReason: string | undefined;
  let failedKind: string | undefined;
  const current = (iteration: unknown): MutableIteration | undefined => {
    const wanted = num(iteration);
    for (let index = timeline.length - 1; index >= 0; index--) {
      if (timeline[index]?.iteration === wanted) return timeline[index];
    }
    return undefined;
  };
  for (const event of events) {
    const at = current(event.iteration);
    switch (event.type) {
      case "run-start":
        attempts++;
        runEnd = undefined;
        break;
      case "run-end":
        runEnd = event;
        break;
      case "baseline":
        baselineEvent = event;
        break;
      case "iteration-start":
        timeline.push({
          iteration: num(event.iteration) ?? 0,
          step: str(event.step) ?? "",
          attempt: Math.max(1, attempts),
          receipts: [],
          checks: [],
          warnings: [],
        });
        break;
      case "prompt": {
        const kind = promptKind(event.kind);
        const iteration = num(event.iteration) ?? 0;
        queryReason = reasonOfPrompt({
          kind,
          iteration,
          ...(retryPattern === undefined ? {} : { pattern: retryPattern }),
        });
        failedKind = undefined;
        if (kind !== "closure-review" && at) {
          at.prompt = {
            kind,
            templatePath: str(event.templatePath) ?? "",
            chars: num(event.chars) ?? 0,
            file: `${RUN_FILES.prompts}/iteration-${pad(iteration)}.md`,
          };
          retryPattern = undefined;
        }
        break;
      }
      case "backend-end": {
        const error = obj(event.error);
        const reason =
          str(event.reason) ??
          (failedKind === undefined ? queryReason : repeatReason(failedKind)) ??
          "unknown";
        failedKind = str(error?.kind);
        const receipt: Receipt = {
          iteration: num(event.iteration) ?? 0,
          reason,
          durationMs: num(event.durationMs) ?? 0,
          costUsd: num(event.costUsd) ?? 0,
          usage: usageOf(event.usage) ?? NO_USAGE,
          ...(failedKind === undefined ? {} : { error: failedKind }),
        };
        receipts.push(receipt);
        at?.receipts.push(receipt);
        break;
      }
      case "completion-signal":
        if (at) at.signalStatus = str(event.status);
        break;
      case "decision":
        if (at) {
          const status = at.signalStatus;
          at.declaration = {
            decision: decisionOf(event.decision),
            source: str(event.source) ?? "none",
            ...(status === undefined ? {} : { status }),
            ...optionalString("reason", event.reason),
            ...optionalString("blockedReason", event.blockedReason),
          };
        }
        break;
      case "format-check":
        if (at) {
          at.format = { valid: event.valid === true, ...optionalString("error", event.error) };
        }
        break;
      case "validator-end":
        at?.checks.push(await validatorCheck(event, runDir));
        break;
      case "guard":
        at?.checks.push({
          kind: "guard",
          name: str(event.guard) ?? "guard",
          valid: event.valid === true,
          ...optionalString("output", event.detail),
        });
        break;
      case "closure-review": {
        const pending = strings(event.pendingActions) ?? [];
        at?.checks.push({
          kind: "closure-review",
          name: "closure-review",
          valid: event.allComplete === true,
          ...optionalNumber("durationMs", event.durationMs),
          ...(pending.length === 0 ? {} : { output: pending.join("\n") }),
        });
        break;
      }
      case "retry-select":
        retryPattern = str(event.pattern);
        if (at) {
          at.retry = {
            pattern: retryPattern ?? "",
            templatePath: str(event.templatePath) ?? "",
            attempt: num(event.attempt) ?? 0,
            maxAttempts: num(event.maxAttempts) ?? 0,
          };
        }
        break;
      case "declaration-refuted":
        refutedDeclarations = num(event.refutedDeclarations) ?? refutedDeclarations + 1;
        break;
      case "warning": {
        const message = str(event.message) ?? "";
        warnings.push(message);
        at?.warnings.push(message);
        break;
      }
      case "side-effect":
        sideEffects.push({
          action: str(event.action) ?? "",
          target: str(event.target) ?? "",
          ok: event.ok === true,
          ...optionalString("detail", event.detail),
        });
        break;
    }
  }
  return {
    timeline: timeline.map(({ signalStatus: _, ...iteration }) => iteration),
    receipts,
    attempts,
    ...(runEnd === undefined ? {} : { runEnd }),
    ...(baselineEvent === undefined ? {} : { baselineEvent }),
    sideEffects,
    warnings,
    refutedDeclarations,
  };
}

export const NO_USAGE: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
};

export function usageOf(value: unknown): TokenUsage | undefined {
  const usage = obj(value);
  if (usage === undefined) return undefined;
  return {
    inputTokens: num(usage.inputTokens) ?? 0,
    outputTokens: num(usage.outputTokens) ?? 0,
    cacheReadTokens: num(usage.cacheReadTokens) ?? 0,
    cacheCreationTokens: num(usage.cacheCreationTokens) ?? 0,
  };
}

export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  return {
    inputTokens: sum(usages.map((usage) => usage.inputTokens)),
    outputTokens: sum(usages.map((usage) => usage.outputTokens)),
    cacheReadTokens: sum(usages.map((usage) => usage.cacheReadTokens)),
    cacheCreationTokens: sum(usages.map((usage) => usage.cacheCreationTokens)),
  };
}

export function promptKind(value: unknown): PromptView["kind"] {
  return value === "retry" || value === "format-retry" || value === "closure-review"
    ? value
    : "step";
}

export function decisionOf(value: unknown): NonNullable<IterationView["declaration"]>["decision"] {
  return value === "complete" || value === "incomplete" || value === "blocked"
    ? value
    : "undecidable";
}

function pad(iteration: number): string {
  return String(iteration).padStart(3, "0");
}
