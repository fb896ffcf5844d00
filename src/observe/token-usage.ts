import { num, obj, sum } from "../record/loose-json.js";
import type { TokenUsage } from "./run-view.js";

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
