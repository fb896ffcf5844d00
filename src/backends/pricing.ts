import { stepModel } from "../definition/step-model.js";

/**
 * Cost from tokens, for backends that report tokens but no price (codex,
 * opencode with an unpriced model): `runner.backend.pricing` when the agent
 * sets it, else the table of known models below (docs/backends.md#cost).
 */
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend, BackendResponse, Usage } from "../ports/backend.js";
import type { BackendConfig, ModelPricing } from "../ports/runner-config.js";

/**
 * List prices in USD per million tokens from the OpenAI and Anthropic price
 * pages as of late 2025 (standard tier, no batch discount); table dated
 * 2026-11-25. Prices change: an agent
 * that needs exact figures sets `runner.backend.pricing`. A name matches its
 * longest key followed by nothing or by `-…` (a date or variant suffix); a
 * provider prefix (`openai/`) is ignored.
 */
const KNOWN_PRICES: Readonly<Record<string, ModelPricing>> = {
  "gpt-5": { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 },
  "gpt-5-codex": { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 },
  "gpt-5-mini": { inputPerMTok: 0.25, outputPerMTok: 2, cacheReadPerMTok: 0.025 },
  "gpt-5-nano": { inputPerMTok: 0.05, outputPerMTok: 0.4, cacheReadPerMTok: 0.005 },
  "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
  "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cacheReadPerMTok: 0.1 },
  "gpt-4.1-nano": { inputPerMTok: 0.1, outputPerMTok: 0.4, cacheReadPerMTok: 0.025 },
  o3: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
  "o3-mini": { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.55 },
  "o4-mini": { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.275 },
  "claude-opus-4": claude(15, 75),
  "claude-opus-4-1": claude(15, 75),
  "claude-opus-4-5": claude(5, 25),
  "claude-sonnet-4": claude(3, 15),
  "claude-sonnet-4-5": claude(3, 15),
  "claude-haiku-4-5": claude(1, 5),
  "claude-3-5-haiku": claude(0.8, 4),
};

/** Anthropic's cache prices: a read is a tenth of the input price, a write 1.25 times it. */
function claude(inputPerMTok: number, outputPerMTok: number): ModelPricing {
  return {
    inputPerMTok,
    outputPerMTok,
    cacheReadPerMTok: inputPerMTok / 10,
    cacheWritePerMTok: inputPerMTok * 1.25,
  };
}

/** The table's price of `model`, or undefined when closer knows none. */
export function knownPriceOf(model: string | undefined): ModelPricing | undefined {
  if (model === undefined) return undefined;
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  const keys = Object.keys(KNOWN_PRICES).filter(
    (key) => name === key || name.startsWith(`${key}-`),
  );
  const longest = keys.sort((left, right) => right.length - left.length)[0];
  return longest === undefined ? undefined : KNOWN_PRICES[longest];
}

/** What `usage` costs at `price`, in USD. */
export function costOf(usage: Usage, price: ModelPricing): number {
  const perToken = (perMTok: number | undefined) => (perMTok ?? price.inputPerMTok) / 1_000_000;
  return (
    usage.inputTokens * perToken(price.inputPerMTok) +
    usage.outputTokens * perToken(price.outputPerMTok) +
    usage.cacheReadTokens * perToken(price.cacheReadPerMTok) +
    usage.cacheCreationTokens * perToken(price.cacheWritePerMTok)
  );
}

/** The response, priced when it reports tokens but no cost and a price is known. */
export function pricedResponse(
  response: BackendResponse,
  price: ModelPricing | undefined,
): BackendResponse {
  if (response.costUsd > 0 || response.usage === undefined || price === undefined) return response;
  return { ...response, costUsd: costOf(response.usage, price) };
}

/** `backend` with its unpriced token counts priced: `pricing` wins over the table. */
export function withPricing(backend: Backend, pricing: ModelPricing | undefined): Backend {
  return {
    ...backend,
    async query(request) {
      const response = await backend.query(request);
      return pricedResponse(response, pricing ?? knownPriceOf(request.model));
    },
  };
}

/** Backends whose cost closer computes from tokens (the others report their own, or none is spent). */
const PRICED_BY_CLOSER: ReadonlySet<BackendConfig["kind"]> = new Set([
  "codex",
  "opencode",
  "openai-compatible",
  "command",
]);

/**
 * Why `runner.budgets.maxCostUsd` cannot be enforced for some model the agent
 * uses, one message per model; empty when it can (or no cost budget is set).
 */
export function unpricedModelWarnings(agent: ResolvedAgent): string[] {
  const { backend, budgets } = agent.runner;
  if (budgets.maxCostUsd === undefined || !PRICED_BY_CLOSER.has(backend.kind)) return [];
  // A command program's cost is known only once it answers (docs/backends.md#command-usage).
  if (backend.kind === "command") return [];
  if (backend.pricing !== undefined) return [];
  const steps = Object.values(agent.registry.steps);
  const models = new Set(steps.map((step) => stepModel(agent, step)));
  if (steps.length === 0) models.add(backend.model);
  const reports = backend.kind === "opencode" ? "may report" : "reports";
  return [...models]
    .filter((model) => knownPriceOf(model) === undefined)
    .map(
      (model) =>
        `runner.budgets.maxCostUsd cannot be enforced for ${model === undefined ? `the ${backend.kind} backend's default model` : `model ${model}`}: the ${backend.kind} backend ${reports} tokens without a price and closer knows none for it; set runner.backend.pricing`,
    );
}
