import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  cwd,
  iteratorAgent,
  loadError,
  problemsOf,
  registryInCompletionSteps,
  registryInSteps,
  useTempCwd,
  writeAgent,
} from "../../test/support/agent-folder.js";

useTempCwd();

describe("loadAgent errors: missing files, syntax, unknown keys, types", () => {
  it("names the missing agent folder, the agents that exist, and closer init", async () => {
    await writeAgent("reviewer", {
      agent: { name: "reviewer" },
      registry: { steps: { "a.b": {} } },
    });
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInCompletionSteps });
    const error = await loadError("itrator");
    expect(error.code).toBe("not_found");
    expect(error.message).toContain(path.join(cwd, ".agent", "itrator"));
    expect(error.message).toContain("iterator, reviewer");
    expect(error.fields.fix).toContain("closer init itrator");
    expect(error.fields.fix).toContain("closer list");
  });

  it("names the missing agent.json of an existing folder", async () => {
    const dir = await writeAgent("iterator", { registry: registryInCompletionSteps });
    const error = await loadError("iterator");
    expect(error.code).toBe("not_found");
    expect(error.fields.file).toBe(path.join(dir, "agent.json"));
    expect(error.message).toContain("no agent.json");
  });

  it("names the missing steps registry", async () => {
    const dir = await writeAgent("iterator", { agent: iteratorAgent });
    const error = await loadError("iterator");
    expect(error.code).toBe("not_found");
    expect(error.fields.file).toBe(path.join(dir, "steps_registry.json"));
    expect(error.fields.fix).toContain("runner.registry");
  });

  it("rejects an agent name that could escape the .agent folder", async () => {
    for (const name of ["../outside", "a/b", "", ".hidden", "Upper"]) {
      const error = await loadError(name);
      expect(error.code).toBe("usage_error");
      expect(error.message).toContain(JSON.stringify(name));
    }
  });

  it("reports a JSON syntax error with file, line and column", async () => {
    const text = '{\n  "name": "iterator",\n  "description": "x"\n  "runner": {}\n}\n';
    const dir = await writeAgent("iterator", { agent: text, registry: registryInCompletionSteps });
    const error = await loadError("iterator");
    expect(error.code).toBe("parse_error");
    expect(error.fields.file).toBe(path.join(dir, "agent.json"));
    expect(error.fields.line).toBe(4);
    expect(error.fields.column).toBe(3);
  });

  it("reports a syntax error of the registry with its line and column", async () => {
    const text = '{\n  "steps": {\n    "a.b": {},\n  }\n}';
    const dir = await writeAgent("iterator", { agent: iteratorAgent, registry: text });
    const error = await loadError("iterator");
    expect(error.code).toBe("parse_error");
    expect(error.fields.file).toBe(path.join(dir, "steps_registry.json"));
    expect([error.fields.line, error.fields.column]).toEqual([3, 14]);
  });

  it("names an unknown key of agent.json, with a suggestion", async () => {
    const dir = await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { maxIteration: 5 } },
      registry: registryInCompletionSteps,
    });
    const [problem, ...rest] = await problemsOf("iterator");
    expect(rest).toEqual([]);
    expect(problem?.code).toBe("validation_error");
    expect(problem?.fields.file).toBe(path.join(dir, "agent.json"));
    expect(problem?.fields.jsonPath).toBe("runner.maxIteration");
    expect(problem?.message).toContain('"maxIteration"');
    expect(problem?.fields.fix).toContain('"maxIterations"');
  });

  it("suggests a key whose letters were swapped", async () => {
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { backend: { modle: "opus" } } },
      registry: registryInCompletionSteps,
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe("runner.backend.modle");
    expect(problem?.fields.fix).toContain('did you mean "model"');
  });

  it("never suggests the key itself when another kind of entry allows it", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInSteps,
        steps: {
          ...registryInSteps.steps,
          "complete.issue": { ...registryInSteps.steps["complete.issue"], next: "x" },
        },
      },
    });
    const [problem, ...rest] = await problemsOf("iterator");
    expect(rest).toEqual([]);
    expect(problem?.fields.jsonPath).toBe('steps["complete.issue"].next');
    expect(problem?.fields.fix).not.toContain("did you mean");
    expect(problem?.fields.fix).toContain("completionConditions");
  });

  it("lists the allowed keys when an unknown key resembles none", async () => {
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, colour: "blue" },
      registry: registryInCompletionSteps,
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe("colour");
    for (const key of ["name", "description", "parameters", "runner"]) {
      expect(problem?.fields.fix).toContain(key);
    }
  });

  it("names an unknown key of a registry step by its JSON path", async () => {
    const dir = await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        ...registryInCompletionSteps,
        steps: { "initial.issue": { nxt: "continuation.issue" } },
      },
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.file).toBe(path.join(dir, "steps_registry.json"));
    expect(problem?.fields.jsonPath).toBe('steps["initial.issue"].nxt');
    expect(problem?.fields.fix).toContain('"next"');
    expect(problem?.describe()).toContain('steps_registry.json at steps["initial.issue"].nxt');
  });

  it("reports a wrong type with what was expected and found", async () => {
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { maxIterations: "ten" } },
      registry: registryInCompletionSteps,
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe("runner.maxIterations");
    expect(problem?.fields.expected).toBe("a number");
    expect(problem?.fields.found).toBe('"ten"');
    expect(problem?.message).toContain('expected a number, found "ten"');
  });

  it("reports a step that is not an object", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: { steps: { "initial.issue": "start" } },
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe('steps["initial.issue"]');
    expect(problem?.message).toBe('expected an object, found "start"');
  });

  it("reports a missing required key", async () => {
    await writeAgent("iterator", {
      agent: { description: "no name" },
      registry: registryInCompletionSteps,
    });
    const [problem] = await problemsOf("iterator");
    expect(problem?.fields.jsonPath).toBe("name");
    expect(problem?.message).toContain('missing required key "name"');
  });
});
