/**
 * A query's running cost from the usage Claude Code streams with each
 * assistant message, for the cost budget during a query (docs/loop.md#budgets).
 * Priced only when the model is in closer's price table (../pricing.ts);
 * Claude Code's own figure comes with the result and replaces it.
 */
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import type { Usage } from "../../ports/backend.js";
import { costOf, knownPriceOf } from "../pricing.js";

interface StreamedUsage {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
}

/** Returns a listener for the SDK's messages that reports the running cost through `report`. */
export function makeRunningCost(
  report: (runningCostUsd: number) => void,
): (message: SDKMessage) => void {
  // One API call may arrive as several messages with the same id and usage: each id counts once.
  const costById = new Map<string, number>();
  return (message) => {
    if (message.type !== "assistant") return;
    const { id, model, usage } = message.message as {
      id?: string;
      model?: string;
      usage?: StreamedUsage;
    };
    const price = knownPriceOf(model);
    if (id === undefined || usage === undefined || price === undefined) return;
    costById.set(id, costOf(usageOf(usage), price));
    let runningCostUsd = 0;
    for (const cost of costById.values()) runningCostUsd += cost;
    report(runningCostUsd);
  };
}

function usageOf(usage: StreamedUsage): Usage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheCreationTokens: usage.cache_creation_input_tokens ?? 0,
  };
}
