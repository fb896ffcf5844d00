import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { makeRunningCost } from "./running-cost.js";

function assistant(id: string, model: string, usage: Record<string, number>): SDKMessage {
  return {
    type: "assistant",
    message: { id, model, role: "assistant", content: [], usage },
    parent_tool_use_id: null,
    session_id: "s",
    uuid: `${id}-uuid`,
  } as unknown as SDKMessage;
}

describe("makeRunningCost", () => {
  it("prices each API call once, at the model's list price, as the messages stream", () => {
    const reported: number[] = [];
    const listen = makeRunningCost((costUsd) => reported.push(costUsd));
    // claude-sonnet-4-5: $3 / MTok in, $15 / MTok out
    listen(assistant("a", "claude-sonnet-4-5", { input_tokens: 1_000_000, output_tokens: 0 }));
    listen(assistant("a", "claude-sonnet-4-5", { input_tokens: 1_000_000, output_tokens: 0 }));
    listen(assistant("b", "claude-sonnet-4-5", { input_tokens: 0, output_tokens: 100_000 }));
    expect(reported).toEqual([3, 3, 4.5]);
  });

  it("reports nothing for a model closer has no price for", () => {
    const reported: number[] = [];
    const listen = makeRunningCost((costUsd) => reported.push(costUsd));
    listen(assistant("a", "claude-fake-default", { input_tokens: 1000, output_tokens: 1000 }));
    expect(reported).toEqual([]);
  });
});
