import { describe, expect, it } from "vitest";
import {
  cwd,
  iteratorAgent,
  problemsOf,
  registryInSteps,
  useTempCwd,
  writeAgent,
} from "../../test/support/agent-folder.js";
import { loadAgent } from "./load-agent.js";

useTempCwd();

function agentWithBackend(backend: Record<string, unknown>) {
  return {
    agent: { ...iteratorAgent, runner: { backend: { kind: "openai-compatible", ...backend } } },
    registry: registryInSteps,
  };
}

describe("loadAgent: the openai-compatible backend's keys", () => {
  it("keeps the endpoint, key variable, step limit, answer mode and price", async () => {
    const backend = {
      baseURL: "http://localhost:11434/v1",
      model: "qwen2.5-coder:14b",
      apiKeyEnv: "OLLAMA_KEY",
      maxSteps: 30,
      structuredOutput: "tool",
      pricing: { inputPerMTok: 0.1, outputPerMTok: 0.2 },
    };
    await writeAgent("iterator", agentWithBackend(backend));
    const agent = await loadAgent("iterator", { cwd });
    expect(agent.runner.backend).toMatchObject({ kind: "openai-compatible", ...backend });
  });

  it("names the missing baseURL and model, each with an example", async () => {
    await writeAgent("iterator", agentWithBackend({}));
    const problems = await problemsOf("iterator");
    const byPath = Object.fromEntries(
      problems.map((problem) => [problem.fields.jsonPath, problem]),
    );
    expect(byPath["runner.backend.baseURL"]?.message).toContain(
      'the openai-compatible backend needs "baseURL"',
    );
    expect(byPath["runner.backend.baseURL"]?.fields.fix).toContain("http://localhost:11434/v1");
    expect(byPath["runner.backend.model"]?.fields.fix).toContain("the name the endpoint knows");
  });

  it("refuses a baseURL that is no http(s) URL and an apiKeyEnv that is no variable name", async () => {
    await writeAgent(
      "iterator",
      agentWithBackend({ baseURL: "localhost:11434", model: "m", apiKeyEnv: "sk-123" }),
    );
    const problems = await problemsOf("iterator");
    const paths = problems.map((problem) => problem.fields.jsonPath);
    expect(paths).toEqual(["runner.backend.baseURL", "runner.backend.apiKeyEnv"]);
    expect(problems[0]?.message).toBe('"localhost:11434" is not an http(s) URL');
    expect(problems[0]?.fields.fix).toContain("http://localhost:11434/v1");
    expect(problems[1]?.message).toBe('"sk-123" is not the name of an environment variable');
    expect(problems[1]?.fields.fix).toContain("never the key itself");
  });
});
