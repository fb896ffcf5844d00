import { afterEach, describe, expect, it } from "vitest";
import { lintAgent, loadAgent } from "../../src/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { makeTestAgent } from "../support/test-agent.js";

describe("closer validate and a cost budget", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function problemsOf(backend: Record<string, unknown>) {
    const runner = {
      backend,
      budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 20_000, maxCostUsd: 2 },
    };
    repo = await makeFixtureRepo({ files: {}, agents: [makeTestAgent({ runner })] });
    const report = await lintAgent(await loadAgent("tasker", { cwd: repo.dir }));
    return report.problems.filter((problem) => problem.jsonPath.includes("maxCostUsd"));
  }

  it("warns that maxCostUsd cannot be enforced for a model closer knows no price for", async () => {
    const problems = await problemsOf({ kind: "codex", model: "my-local-model" });
    expect(problems).toEqual([
      expect.objectContaining({
        severity: "warning",
        message: expect.stringContaining("cannot be enforced for model my-local-model"),
      }),
    ]);
  });

  it("is satisfied by a known model or the agent's own pricing", async () => {
    expect(await problemsOf({ kind: "codex", model: "gpt-5" })).toEqual([]);
    await repo?.cleanup();
    const pricing = { inputPerMTok: 0.1, outputPerMTok: 0.2 };
    expect(await problemsOf({ kind: "codex", model: "my-local-model", pricing })).toEqual([]);
  });
});
