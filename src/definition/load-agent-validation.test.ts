import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  iteratorAgent,
  loadError,
  problemsOf,
  registryInCompletionSteps,
  registryInSteps,
  useTempCwd,
  validators,
  workSteps,
  writeAgent,
} from "../../test/support/agent-folder.js";
import { EXTRACTOR_NAMES } from "../ports/registry.js";

useTempCwd();

describe("loadAgent errors: validators, steps, paths and duplicates", () => {
  it("names the validator whose successWhen rule is invalid", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInCompletionSteps,
        validators: { "tests-pass": { ...validators["tests-pass"], successWhen: "exit:0" } },
      },
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe('validators["tests-pass"].successWhen');
    expect(problem?.describe()).toContain("tests-pass");
    expect(problem?.message).toContain('"exit:0"');
    expect(problem?.fields.fix).toContain("exitCode:N");
  });

  it("lists the valid extractors for an unknown one", async () => {
    const extractParams = { failedTests: "parseTests" };
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInCompletionSteps,
        validators: { "tests-pass": { ...validators["tests-pass"], extractParams } },
      },
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe('validators["tests-pass"].extractParams.failedTests');
    expect(problem?.message).toContain('"parseTests"');
    for (const name of EXTRACTOR_NAMES) expect(problem?.fields.fix).toContain(name);
  });

  it("names an unknown validator type and the known ones", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInCompletionSteps,
        validators: { lint: { type: "shell", command: "x", failurePattern: "p" } },
      },
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe("validators.lint.type");
    expect(problem?.message).toContain('"shell"');
    expect(problem?.fields.fix).toContain('"command", "file", "custom"');
  });

  it("reports a completion step inside steps by the completion step's rules", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInSteps,
        steps: {
          ...registryInSteps.steps,
          "complete.issue": {
            ...registryInSteps.steps["complete.issue"],
            onFailure: { action: "halt" },
          },
        },
      },
    });
    const [problem, ...rest] = await problemsOf("iterator");
    expect(rest).toEqual([]);
    expect(problem?.fields.jsonPath).toBe('steps["complete.issue"].onFailure.action');
    expect(problem?.fields.fix).toContain('"retry", "abort", "skip"');
  });

  it("chooses between a step and a completion step by what the entry holds", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        steps: {
          "initial.issue": { next: 5, edition: "Bad Edition", model: 3 },
          "complete.issue": {
            c2: "retry",
            c3: "issue",
            completionConditions: [{ validator: 1 }, { validator: 2 }],
          },
        },
      },
    });
    const paths = (await problemsOf("iterator")).map((problem) => problem.fields.jsonPath);
    expect(new Set(paths)).toEqual(
      new Set([
        'steps["initial.issue"].edition',
        'steps["initial.issue"].next',
        'steps["initial.issue"].model',
        'steps["complete.issue"].completionConditions[0].validator',
        'steps["complete.issue"].completionConditions[1].validator',
      ]),
    );
    expect(paths).toHaveLength(5);
  });

  it("reports every problem of both files at once", async () => {
    await writeAgent("iterator", {
      agent: {
        ...iteratorAgent,
        runner: { backend: { kind: "command" }, decisionFile: "../outside.json" },
      },
      registry: {
        ...registryInCompletionSteps,
        completionSteps: { done: { completionConditions: [], onFailure: {}, onFail: {} } },
        bogus: true,
      },
    });
    const paths = (await problemsOf("iterator")).map((problem) => problem.fields.jsonPath);
    expect(paths).toEqual(
      expect.arrayContaining([
        "runner.backend.command",
        "runner.decisionFile",
        "bogus",
        "completionSteps.done.onFail",
      ]),
    );
  });

  it("refuses a path that leaves its folder, naming the file, the key and the way back", async () => {
    await writeAgent("iterator", {
      agent: {
        ...iteratorAgent,
        runner: { systemPrompt: "../../system.md", registry: "/etc/registry.json" },
      },
      registry: {
        ...registryInCompletionSteps,
        validators: {
          ...validators,
          report: { type: "file", path: "../report.md", failurePattern: "git-dirty" },
          review: {
            type: "custom",
            module: "checks/../../review.mjs",
            failurePattern: "git-dirty",
          },
        },
        steps: {
          ...workSteps,
          "initial.issue": {
            ...workSteps["initial.issue"],
            outputSchemaRef: { file: "../issue.schema.json", schema: "initial.issue" },
          },
        },
      },
    });
    const problems = await problemsOf("iterator");
    expect(problems.map((problem) => [problem.fields.jsonPath, problem.message])).toEqual([
      ["runner.systemPrompt", '"../../system.md" leaves the agent folder'],
      ["runner.registry", '"/etc/registry.json" leaves the agent folder'],
      ["validators.report.path", '"../report.md" leaves the working tree'],
      ["validators.review.module", '"checks/../../review.mjs" leaves the agent folder'],
      [
        'steps["initial.issue"].outputSchemaRef.file',
        '"../issue.schema.json" leaves the schemas folder',
      ],
    ]);
    expect(problems[1]?.fields.fix).toContain('"steps_registry.json"');
  });

  it("refuses extractParams on a custom validator, whose module returns its params", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInCompletionSteps,
        validators: {
          ...validators,
          review: {
            type: "custom",
            module: "review.mjs",
            failurePattern: "git-dirty",
            extractParams: { changedFiles: "stdout" },
          },
        },
      },
    });
    const [problem, ...rest] = await problemsOf("iterator");
    expect(rest).toEqual([]);
    expect(problem?.fields.jsonPath).toBe("validators.review.extractParams");
    expect(problem?.message).toContain('unknown key "extractParams"');
    expect(problem?.fields.fix).toContain("module");
  });

  it("reports a key written twice, which JSON would silently drop", async () => {
    const registry = JSON.stringify(registryInCompletionSteps, null, 2).replace(
      '"entryStep": "initial.issue",',
      '"entryStep": "continuation.issue",\n  "entryStep": "initial.issue",',
    );
    const dir = await writeAgent("iterator", { agent: iteratorAgent, registry });
    const error = await loadError("iterator");
    expect(error.code).toBe("parse_error");
    expect(error.fields).toMatchObject({
      file: path.join(dir, "steps_registry.json"),
      jsonPath: "entryStep",
      line: 4,
    });
  });

  it("reports problems found while normalizing", async () => {
    await writeAgent("iterator", {
      agent: {
        ...iteratorAgent,
        name: "other",
        parameters: { dry: { type: "boolean", default: "yes" } },
      },
      registry: {
        steps: { start: {}, "a.b": { stepId: "x.y" } },
        completionSteps: { done: { completionConditions: [] } },
      },
    });
    const problems = await problemsOf("iterator");
    expect(problems.map((problem) => problem.fields.jsonPath)).toEqual(["parameters.dry.default"]);
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, name: "other" },
      registry: {
        steps: { start: {}, "a.b": { stepId: "x.y" } },
        completionSteps: { done: { completionConditions: [] } },
      },
    });
    const later = await problemsOf("iterator");
    expect(later.map((problem) => problem.fields.jsonPath)).toEqual([
      "name",
      "steps.start",
      'steps["a.b"].stepId',
      "completionSteps.done",
    ]);
    expect(later[0]?.fields.fix).toContain('"iterator"');
  });
});
