import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { SchemaResolver } from "../../src/definition/schema-resolver.js";
import { lintAgentFolder } from "../../src/lint/index.js";
import { cwd, useTempCwd } from "../support/agent-folder.js";
import {
  completeRegistry,
  mergeRegistries,
  readSeedExamples,
  type SeedExample,
  writeStubs,
} from "../support/seed-examples.js";

useTempCwd();

const examples = await readSeedExamples();
const seeds = [...new Set(examples.map((example) => example.seed))];

async function writeSeedAgent(registry: Record<string, unknown>, agent?: Record<string, unknown>) {
  const dir = path.join(cwd, ".agent", "seed");
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "agent.json"), JSON.stringify({ ...agent, name: "seed" }));
  await writeFile(path.join(dir, "steps_registry.json"), JSON.stringify(registry, null, 2));
  return loadAgent("seed", { cwd });
}

function where(example: SeedExample) {
  return `${example.seed}:${example.line}`;
}

describe("the JSON examples of the seed documents (docs/definition.md#seed-spellings)", () => {
  it("finds every example and knows what each is", () => {
    expect(examples.map((example) => [where(example), example.kind])).toEqual([
      ["000_6e03e8e0ddf4ad24.txt:105", "registry"],
      ["000_6e03e8e0ddf4ad24.txt:162", "registry"],
      ["000_6e03e8e0ddf4ad24.txt:185", "registry"],
      ["000_6e03e8e0ddf4ad24.txt:295", "registry"],
      ["001_b9e8775e03c9774e.txt:58", "registry"],
      ["001_b9e8775e03c9774e.txt:86", "schema"],
      ["002_39f6ee370ca42147.txt:56", "registry"],
    ]);
  });

  it.each(
    examples
      .filter((example) => example.kind === "registry")
      .map((example) => [where(example), example]),
  )("loads the registry example %s as written", async (_where, example) => {
    const agent = await writeSeedAgent(completeRegistry(example.value, false));
    expect(agent.registry.completionSteps).toBeDefined();
  });

  it.each(seeds.filter((seed) => examples.some((example) => example.seed === seed)))(
    "passes closer validate with every example of %s in one agent",
    async (seed) => {
      const ofSeed = examples.filter((example) => example.seed === seed);
      const agentJson = ofSeed.find((example) => example.kind === "agent")?.value;
      const agent = await writeSeedAgent(
        completeRegistry(mergeRegistries(ofSeed), true),
        agentJson,
      );
      await writeStubs(
        agent,
        ofSeed.filter((example) => example.kind === "schema"),
      );
      const report = await lintAgentFolder("seed", cwd);
      expect(report.problems.filter((problem) => problem.severity === "error")).toEqual([]);
      expect(report.valid).toBe(true);
    },
  );

  it("resolves seed 001's schema example where its text puts it, $ref included", async () => {
    const [schema] = examples.filter((example) => example.kind === "schema");
    expect(schema?.place).toEqual({ file: "issue.schema.json", schema: "complete.issue" });
    const agent = await writeSeedAgent(completeRegistry(mergeRegistries([schema!]), true));
    await writeStubs(agent, [schema!]);
    const resolved = await new SchemaResolver(path.join(agent.dir, "schemas")).resolve({
      file: "issue.schema.json",
      schema: "complete.issue",
    });
    expect(resolved).toMatchObject({
      required: ["stepId", "status", "summary", "validation"],
      additionalProperties: false,
      properties: { validation: { additionalProperties: false } },
    });
  });

  it("reads seed 000's completion step inside steps, with its retry folder and onFailure", async () => {
    const agent = await writeSeedAgent(
      completeRegistry(mergeRegistries(examples.filter((e) => e.seed.startsWith("000"))), false),
    );
    expect(agent.registry.completionSteps["complete.issue"]).toMatchObject({
      c2: "retry",
      c3: "issue",
      completionConditions: [{ validator: "git-clean" }, { validator: "tests-pass" }],
      onFailure: { action: "retry", maxAttempts: 3 },
    });
    expect(agent.registry.completionPatterns["test-failed"]?.params).toEqual([
      "failedTests",
      "errorOutput",
    ]);
  });

  it("reads seed 002's prompt {c1, c2, c3} as the completion step's own prompt, its retries in retry/<c3>", async () => {
    const [example] = examples.filter((e) => e.seed.startsWith("002"));
    const agent = await writeSeedAgent(completeRegistry(example!.value, false));
    expect(agent.registry.completionSteps["closure.issue"]).toEqual({
      id: "closure.issue",
      name: "closure.issue",
      c2: "retry",
      c3: "issue",
      prompt: { c2: "closure", c3: "issue", edition: "default" },
      outputSchemaRef: { file: "issue.schema.json", schema: "closure.issue" },
      completionConditions: [{ validator: "git-clean" }, { validator: "type-check" }],
      onFailure: { action: "retry", maxAttempts: 2 },
      maxFormatRetries: 3,
    });
  });
});
