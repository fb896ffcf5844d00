import { afterEach, describe, expect, it, vi } from "vitest";
import { lintAgent, loadAgent } from "../../src/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { makeTestAgent } from "../support/test-agent.js";

describe("closer validate and the openai-compatible backend's key", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    repo = undefined;
  });

  async function keyProblems() {
    const backend = {
      kind: "openai-compatible",
      baseURL: "http://127.0.0.1:9/v1",
      model: "local",
      apiKeyEnv: "CLOSER_TEST_ENDPOINT_KEY",
    };
    repo = await makeFixtureRepo({ files: {}, agents: [makeTestAgent({ runner: { backend } })] });
    const report = await lintAgent(await loadAgent("tasker", { cwd: repo.dir }));
    return report.problems.filter((problem) => problem.jsonPath === "runner.backend.apiKeyEnv");
  }

  it("warns when the variable apiKeyEnv names is not set, and names it", async () => {
    vi.stubEnv("CLOSER_TEST_ENDPOINT_KEY", "");
    expect(await keyProblems()).toEqual([
      expect.objectContaining({
        severity: "warning",
        message: expect.stringContaining("CLOSER_TEST_ENDPOINT_KEY, which is not set"),
      }),
    ]);
  });

  it("says nothing when it is set", async () => {
    vi.stubEnv("CLOSER_TEST_ENDPOINT_KEY", "sk-local");
    expect(await keyProblems()).toEqual([]);
  });
});
