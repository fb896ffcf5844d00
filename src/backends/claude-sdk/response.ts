/**
 * One query's messages turned into a BackendResponse: text, session, tools
 * used, structured output (checked again), per-query usage and cost, error.
 */
import type { SDKMessage, SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { BackendRequest, BackendResponse, Usage } from "../../ports/backend.js";
import { classifyRun, lastResult, type QueryRun } from "./errors.js";
import type { StructuredOutputValidator } from "./structured-output.js";

/** The SDK's running totals of one session, as last seen. */
export interface SessionTotals {
  readonly costUsd: number;
  readonly usage: Usage;
}

export interface ResponseContext {
  readonly request: BackendRequest;
  /** Per-session totals of this backend instance; updated here. */
  readonly sessionTotals: Map<string, SessionTotals>;
  readonly validate: StructuredOutputValidator;
  readonly durationMs: number;
  readonly nowMs: number;
}

const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
};
/** The tool through which Claude Code delivers structured output; not a tool of the work. */
const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

function toolsUsedIn(messages: readonly SDKMessage[]): string[] {
  const names: string[] = [];
  for (const message of messages) {
    if (message.type !== "assistant") continue;
    for (const block of message.message.content) {
      if (block.type === "tool_use" && block.name !== STRUCTURED_OUTPUT_TOOL)
        names.push(block.name);
    }
  }
  return names;
}

function finalText(messages: readonly SDKMessage[], result: SDKResultMessage | undefined): string {
  if (result?.subtype === "success" && !result.is_error) return result.result;
  const texts: string[] = [];
  for (const message of messages) {
    // An assistant message with `error` is Claude Code's report of an API failure, not the model's words.
    if (message.type !== "assistant" || message.error !== undefined) continue;
    for (const block of message.message.content) if (block.type === "text") texts.push(block.text);
  }
  return texts.at(-1) ?? "";
}

function sessionIdOf(messages: readonly SDKMessage[]): string | undefined {
  return messages.findLast((message) => "session_id" in message && message.session_id)
    ?.session_id as string | undefined;
}

/** Cumulative totals of the session from a result (modelUsage counts every model call). */
function totalsOf(result: SDKResultMessage): { costUsd: number; usage?: Usage } {
  const models = Object.values(result.modelUsage ?? {});
  if (models.length === 0) return { costUsd: result.total_cost_usd ?? 0 };
  const usage = models.reduce<Usage>(
    (sum, model) => ({
      inputTokens: sum.inputTokens + (model.inputTokens ?? 0),
      outputTokens: sum.outputTokens + (model.outputTokens ?? 0),
      cacheReadTokens: sum.cacheReadTokens + (model.cacheReadInputTokens ?? 0),
      cacheCreationTokens: sum.cacheCreationTokens + (model.cacheCreationInputTokens ?? 0),
    }),
    ZERO_USAGE,
  );
  return { costUsd: result.total_cost_usd ?? 0, usage };
}

/** The turn's own usage, for results without per-model totals. */
function turnUsageOf(result: SDKResultMessage): Usage {
  const usage = result.usage;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheCreationTokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

function difference(current: number, previous: number): number {
  // A running total that went down was reset (e.g. a cleared session): all of it is new.
  return current >= previous ? current - previous : current;
}

/**
 * The SDK's cost and per-model usage are running totals of the session; the
 * loop wants what this query alone spent, so the last totals are kept per session.
 */
function spentThisQuery(
  result: SDKResultMessage,
  sessionId: string | undefined,
  sessionTotals: Map<string, SessionTotals>,
): { costUsd: number; usage: Usage } {
  const previous = (sessionId && sessionTotals.get(sessionId)) || { costUsd: 0, usage: ZERO_USAGE };
  const current = totalsOf(result);
  const costUsd = roundUsd(difference(current.costUsd, previous.costUsd));
  const usage: Usage = current.usage
    ? {
        inputTokens: difference(current.usage.inputTokens, previous.usage.inputTokens),
        outputTokens: difference(current.usage.outputTokens, previous.usage.outputTokens),
        cacheReadTokens: difference(current.usage.cacheReadTokens, previous.usage.cacheReadTokens),
        cacheCreationTokens: difference(
          current.usage.cacheCreationTokens,
          previous.usage.cacheCreationTokens,
        ),
      }
    : turnUsageOf(result);
  if (sessionId) {
    sessionTotals.set(sessionId, { costUsd: current.costUsd, usage: current.usage ?? usage });
  }
  return { costUsd, usage };
}

export function toBackendResponse(run: QueryRun, context: ResponseContext): BackendResponse {
  const { request } = context;
  const result = lastResult(run.messages);
  const error = classifyRun(run, request, context.nowMs);
  const transcript: unknown[] = [...run.messages];
  let structuredOutput: unknown;
  if (request.schema && result?.subtype === "success" && !result.is_error) {
    const candidate = result.structured_output;
    const check = candidate === undefined ? undefined : context.validate(request.schema, candidate);
    if (check?.valid) structuredOutput = candidate;
    else if (check)
      transcript.push({
        type: "closer",
        subtype: "structured_output_invalid",
        errors: check.errors,
      });
  }
  if (error && run.stderr.trim())
    transcript.push({ type: "closer", subtype: "stderr", text: run.stderr });
  if (error?.kind === "session_expired" && request.sessionId) {
    context.sessionTotals.delete(request.sessionId);
  }
  const sessionId = error?.kind === "session_expired" ? undefined : sessionIdOf(run.messages);
  const spent = result ? spentThisQuery(result, sessionId, context.sessionTotals) : undefined;
  return {
    ...(structuredOutput === undefined ? {} : { structuredOutput }),
    text: finalText(run.messages, result),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(spent ? { usage: spent.usage } : {}),
    costUsd: spent?.costUsd ?? 0,
    durationMs: context.durationMs,
    toolsUsed: toolsUsedIn(run.messages),
    transcript,
    ...(error ? { error } : {}),
  };
}
