import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { makeScaffoldFiles } from "../cli/scaffold/scaffold-files.js";
import type { ScaffoldPlan } from "../cli/scaffold/scaffold-plan.js";
import { makeJsonSchemaFiles } from "./make-json-schema-files.js";

const schemasDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "schemas",
);

async function compile(name: string) {
  const schema = JSON.parse(await readFile(path.join(schemasDir, name), "utf8"));
  return new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
}

describe("schemas/*.schema.json", () => {
  it("equal a fresh generation (run `npx tsx scripts/generate-schemas.ts` after changing a schema)", async () => {
    for (const [name, text] of Object.entries(makeJsonSchemaFiles())) {
      expect(await readFile(path.join(schemasDir, name), "utf8"), name).toBe(text);
    }
  });

  it("carry the field docs for editors", () => {
    const agent = JSON.parse(makeJsonSchemaFiles()["agent.schema.json"] ?? "{}");
    expect(agent.properties.runner.properties.maxIterations).toMatchObject({
      default: 20,
      description: expect.stringContaining("Iterations"),
    });
  });

  it("accept a valid agent.json and reject an unknown key", async () => {
    const validate = await compile("agent.schema.json");
    const agent = {
      $schema: "../../node_modules/closer-agent/schemas/agent.schema.json",
      name: "iterator",
      description: "Works on an issue",
      parameters: { issue: { type: "number", required: true } },
      runner: {
        backend: { kind: "claude-sdk", model: "claude-sonnet-4-5", session: "fresh" },
        maxIterations: 10,
        budgets: { maxCostUsd: 2.5 },
        worktree: { enabled: true, onSuccess: "push" },
        github: { labels: { add: ["done"] }, closeAction: "label-and-close" },
      },
    };
    expect(validate(agent), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...agent, runner: { ...agent.runner, maxIteration: 3 } })).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({
        keyword: "additionalProperties",
        instancePath: "/runner",
        params: { additionalProperty: "maxIteration" },
      }),
    );
  });

  it("are what the $schema of the scaffolded agent and of the bundled example point at", async () => {
    const root = path.resolve(schemasDir, "..");
    const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"));
    expect(manifest.files).toContain("schemas");
    const plan: ScaffoldPlan = {
      checks: [
        { role: "test", command: "npm test", source: "package.json", parser: "parseTestOutput" },
        { role: "lint", command: "go vet ./...", source: "go.mod" },
      ],
      backend: "claude-sdk",
      schemas: {
        agent: "../../node_modules/closer-agent/schemas/agent.schema.json",
        registry: "../../node_modules/closer-agent/schemas/steps_registry.schema.json",
      },
    };
    const scaffold = new Map(makeScaffoldFiles("demo", plan).map((file) => [file.path, file.text]));
    const exampleDir = path.join(root, "examples/example-repo/.agent/example");
    for (const [file, schemaName] of [
      ["agent.json", "agent.schema.json"],
      ["steps_registry.json", "steps_registry.schema.json"],
    ] as const) {
      const validate = await compile(schemaName);
      const scaffolded = JSON.parse(scaffold.get(file) ?? "{}");
      expect(validate(scaffolded), JSON.stringify(validate.errors)).toBe(true);
      const example = JSON.parse(await readFile(path.join(exampleDir, file), "utf8"));
      expect(path.resolve(exampleDir, example.$schema)).toBe(path.join(schemasDir, schemaName));
      expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("refuse a path that leaves its folder, as closer does", async () => {
    const validate = await compile("agent.schema.json");
    const agent = (runner: Record<string, unknown>) => ({ name: "demo", runner });
    expect(validate(agent({ systemPrompt: "prompts/system.md" }))).toBe(true);
    for (const systemPrompt of ["../system.md", "a/../../b.md", "/etc/passwd", "C:\\x.md"]) {
      expect(validate(agent({ systemPrompt })), systemPrompt).toBe(false);
    }
  });

  it("accept both registry spellings of a completion step", async () => {
    const validate = await compile("steps_registry.schema.json");
    const validators = {
      "git-clean": {
        type: "command",
        command: "git status --porcelain",
        successWhen: "empty",
        failurePattern: "git-dirty",
      },
    };
    const inSteps = {
      validators,
      steps: {
        "initial.issue": {
          outputSchemaRef: { file: "issue.schema.json", schema: "initial.issue" },
        },
        "complete.issue": {
          c2: "retry",
          c3: "issue",
          completionConditions: [{ validator: "git-clean" }],
          onFailure: { action: "retry", maxAttempts: 3 },
        },
      },
    };
    const inCompletionSteps = {
      validators,
      steps: { "initial.issue": {} },
      completionSteps: {
        "closure.issue": {
          prompt: { c1: "steps", c2: "closure", c3: "issue" },
          completionConditions: [{ validator: "git-clean" }],
          onFail: { retry: true, maxAttempts: 2 },
        },
      },
    };
    expect(validate(inSteps), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(inCompletionSteps), JSON.stringify(validate.errors)).toBe(true);
    expect(
      validate({
        ...inSteps,
        validators: { x: { ...validators["git-clean"], successWhen: "exit:0" } },
      }),
    ).toBe(false);
  });
});
