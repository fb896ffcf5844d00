import { describe, expect, it } from "vitest";
import { type RunFlags, readRunInvocation } from "../../src/cli/run/run-invocation.js";

const flags = (change: Partial<RunFlags> = {}): RunFlags => ({ worktree: true, ...change });

describe("readRunInvocation", () => {
  it("takes the agent from the positional or from --agent, and leaves the rest for the agent's flags", () => {
    expect(readRunInvocation(["fixer", "--flavour", "mint"], flags({ task: "t" }))).toEqual({
      agentName: "fixer",
      mode: { kind: "task", text: "t" },
      parameterTokens: ["--flavour", "mint"],
    });
    expect(
      readRunInvocation(["--flavour", "mint"], flags({ agent: "fixer", issue: "4" })),
    ).toMatchObject({
      agentName: "fixer",
      mode: { kind: "issue", issue: 4 },
    });
    expect(readRunInvocation(["fixer"], flags({ agent: "fixer", resume: "r1" })).mode).toEqual({
      kind: "resume",
      runId: "r1",
      reloadDefinition: false,
      rebuild: false,
    });
    expect(
      readRunInvocation(["fixer"], flags({ resume: "r1", reloadDefinition: true })).mode,
    ).toEqual({ kind: "resume", runId: "r1", reloadDefinition: true, rebuild: false });
    expect(readRunInvocation(["fixer"], flags({ resume: "r1", rebuild: true })).mode).toEqual({
      kind: "resume",
      runId: "r1",
      reloadDefinition: false,
      rebuild: true,
    });
  });

  it.each([
    {
      name: "two different agents",
      tokens: ["a"],
      change: { agent: "b", task: "t" },
      text: "two different agents",
    },
    { name: "no agent", tokens: [], change: { task: "t" }, text: "which agent?" },
    {
      name: "the agent's flags before the agent",
      tokens: ["--x", "1", "a"],
      change: { task: "t" },
      text: "name the agent before its own options",
    },
    { name: "no task", tokens: ["a"], change: {}, text: "missing task" },
    {
      name: "two task sources",
      tokens: ["a"],
      change: { task: "t", issue: "3" },
      text: "--task and --issue cannot be combined",
    },
    {
      name: "a bad issue number",
      tokens: ["a"],
      change: { issue: "x3" },
      text: "--issue must be a whole number",
    },
    {
      name: "--concurrency without a batch",
      tokens: ["a"],
      change: { task: "t", concurrency: "2" },
      text: "--concurrency applies only",
    },
    {
      name: "--branch in a batch",
      tokens: ["a"],
      change: { label: "l", branch: "b" },
      text: "--branch cannot be used",
    },
    {
      name: "--no-worktree in a batch",
      tokens: ["a"],
      change: { label: "l", worktree: false },
      text: "--no-worktree cannot be used",
    },
    {
      name: "--branch without a worktree",
      tokens: ["a"],
      change: { task: "t", branch: "b", worktree: false },
      text: "need a worktree",
    },
    {
      name: "--reload-definition without --resume",
      tokens: ["a"],
      change: { task: "t", reloadDefinition: true },
      text: "--reload-definition applies only to --resume",
    },
    {
      name: "--rebuild without --resume",
      tokens: ["a"],
      change: { task: "t", rebuild: true },
      text: "--rebuild applies only to --resume",
    },
    {
      name: "a zero --max-iterations",
      tokens: ["a"],
      change: { task: "t", maxIterations: "0" },
      text: "--max-iterations must be",
    },
  ])("is a usage error: $name", ({ tokens, change, text }) => {
    expect(() => readRunInvocation(tokens, flags(change as Partial<RunFlags>))).toThrow(text);
  });

  it("reads a batch with its label, project and concurrency", () => {
    expect(
      readRunInvocation(["a"], flags({ label: "ready", project: "3", concurrency: "4" })).mode,
    ).toEqual({
      kind: "batch",
      label: "ready",
      project: 3,
      concurrency: 4,
    });
  });
});
