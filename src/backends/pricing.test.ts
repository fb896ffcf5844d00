import { describe, expect, it } from "vitest";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend, BackendResponse } from "../ports/backend.js";
import {
  costOf,
  knownPriceOf,
  pricedResponse,
  unpricedModelWarnings,
  withPricing,
} from "./pricing.js";

const MILLION = 1_000_000;

function response(fields: Partial<BackendResponse>): BackendResponse {
  return { text: "", costUsd: 0, durationMs: 1, toolsUsed: [], transcript: [], ...fields };
}

const USAGE = {
  inputTokens: MILLION,
  outputTokens: MILLION,
  cacheReadTokens: MILLION,
  cacheCreationTokens: MILLION,
};

describe("knownPriceOf", () => {
  it("matches the longest known name, with a suffix or a provider prefix", () => {
    expect(knownPriceOf("gpt-5")?.inputPerMTok).toBe(1.25);
    expect(knownPriceOf("gpt-5-mini")?.inputPerMTok).toBe(0.25);
    expect(knownPriceOf("openai/gpt-5-mini-2025-08-07")?.inputPerMTok).toBe(0.25);
    expect(knownPriceOf("anthropic/claude-sonnet-4-5-20250929")?.outputPerMTok).toBe(15);
    expect(knownPriceOf("o4-mini")?.outputPerMTok).toBe(4.4);
  });

  it("knows nothing of other models, or of no model", () => {
    expect(knownPriceOf("gpt-50")).toBeUndefined();
    expect(knownPriceOf("llama-3")).toBeUndefined();
    expect(knownPriceOf(undefined)).toBeUndefined();
  });
});

describe("costOf", () => {
  it("prices each kind of token; cache prices default to the input price", () => {
    expect(costOf(USAGE, { inputPerMTok: 1, outputPerMTok: 2 })).toBe(5);
    const full = { inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.5, cacheWritePerMTok: 3 };
    expect(costOf(USAGE, full)).toBe(6.5);
  });
});

describe("pricedResponse and withPricing", () => {
  const price = { inputPerMTok: 1, outputPerMTok: 2 };

  it("prices tokens reported without a cost, and keeps a reported cost", () => {
    expect(pricedResponse(response({ usage: USAGE }), price).costUsd).toBe(5);
    expect(pricedResponse(response({ usage: USAGE, costUsd: 0.1 }), price).costUsd).toBe(0.1);
    expect(pricedResponse(response({ usage: USAGE }), undefined).costUsd).toBe(0);
    expect(pricedResponse(response({}), price).costUsd).toBe(0);
  });

  it("uses the agent's pricing over the table, else the table's price of the request's model", async () => {
    const inner: Backend = {
      name: "codex",
      enforcesSchema: true,
      query: async () => response({ usage: USAGE }),
    };
    const request = {
      prompt: "",
      cwd: "/",
      allowedTools: [],
      disallowedTools: [],
      permissionMode: "acceptEdits" as const,
      env: {},
      timeoutMs: 1,
      signal: new AbortController().signal,
    };
    expect((await withPricing(inner, price).query({ ...request, model: "gpt-5" })).costUsd).toBe(5);
    const fromTable = await withPricing(inner, undefined).query({ ...request, model: "gpt-5" });
    expect(fromTable.costUsd).toBeCloseTo(1.25 + 10 + 0.125 + 1.25);
    expect((await withPricing(inner, undefined).query(request)).costUsd).toBe(0);
  });
});

describe("unpricedModelWarnings", () => {
  function agentWith(backend: Record<string, unknown>, maxCostUsd?: number): ResolvedAgent {
    return {
      runner: { backend: { kind: "codex", ...backend }, budgets: { maxCostUsd } },
      registry: { steps: { "initial.issue": {}, "continuation.issue": { model: "gpt-5" } } },
    } as unknown as ResolvedAgent;
  }

  it("names each model without a price when maxCostUsd is set", () => {
    const warnings = unpricedModelWarnings(agentWith({ model: "my-local-model" }, 1));
    expect(warnings).toEqual([expect.stringContaining("model my-local-model")]);
    expect(warnings[0]).toContain("runner.backend.pricing");
    expect(unpricedModelWarnings(agentWith({}, 1))).toEqual([
      expect.stringContaining("the codex backend's default model"),
    ]);
  });

  it("is silent without a cost budget, with the agent's pricing, or for a backend that reports cost", () => {
    expect(unpricedModelWarnings(agentWith({ model: "x" }))).toEqual([]);
    const priced = agentWith({ model: "x", pricing: { inputPerMTok: 1, outputPerMTok: 1 } }, 1);
    expect(unpricedModelWarnings(priced)).toEqual([]);
    expect(unpricedModelWarnings(agentWith({ kind: "claude-sdk", model: "x" }, 1))).toEqual([]);
    expect(unpricedModelWarnings(agentWith({ model: "gpt-5-mini" }, 1))).toEqual([]);
  });

  it("leaves the command backend to its answers: its program may report its cost", () => {
    expect(unpricedModelWarnings(agentWith({ kind: "command" }, 1))).toEqual([]);
  });
});
