import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  cwd,
  iteratorAgent,
  patterns,
  problemsOf,
  registryInCompletionSteps,
  useTempCwd,
  validators,
  writeAgent,
} from "../../test/support/agent-folder.js";
import { CloserErrorList } from "../errors.js";
import { listAgents, loadAgent, readAgent } from "./load-agent.js";

useTempCwd();

describe("loadAgent", () => {
  it("resolves a minimal agent with every default applied", async () => {
    const dir = await writeAgent("iterator", {
      agent: { name: "iterator" },
      registry: { steps: { "initial.issue": {} } },
    });
    const agent = await loadAgent("iterator", { cwd });
    expect(agent.name).toBe("iterator");
    expect(agent.dir).toBe(dir);
    expect(agent.files).toEqual({
      agentJson: path.join(dir, "agent.json"),
      registry: path.join(dir, "steps_registry.json"),
    });
    expect(agent.runner.backend).toEqual({
      kind: "claude-sdk",
      allowedTools: ["Read", "Write", "Edit", "Glob", "Grep", "Bash"],
      disallowedTools: [],
      permissionMode: "acceptEdits",
      sessionPolicy: "continue",
      settingSources: [],
    });
    expect(agent.runner.systemPromptPath).toBe(path.join(dir, "prompts", "system.md"));
    expect(agent.runner.maxIterations).toBe(20);
    expect(agent.runner.maxUndecidable).toBe(3);
    expect(agent.runner.decisionFile).toBeUndefined();
    expect(agent.runner.budgets).toEqual({
      queryTimeoutMs: 1_800_000,
      validatorTimeoutMs: 600_000,
      transientWaitMs: 900_000,
    });
    expect(agent.runner.worktree).toEqual({
      enabled: false,
      root: ".closer/worktrees",
      branchTemplate: "closer/issue-{issue}",
      onSuccess: "merge",
      autoCommit: false,
    });
    expect(agent.runner.github).toEqual({
      labels: { add: [], remove: [] },
      closeAction: "close",
      completionComment: true,
      failureComment: false,
    });
    expect(agent.runner.logging).toEqual({ verbose: false });
    expect(agent.registry).toEqual({
      agentId: "iterator",
      c1: "steps",
      entryStep: "initial.issue",
      completionSignal: { status: ["completed"], action: ["complete", "closing"] },
      completionPatterns: {},
      validators: {},
      steps: {
        "initial.issue": {
          id: "initial.issue",
          name: "initial.issue",
          c2: "initial",
          c3: "issue",
          edition: "default",
        },
      },
      completionSteps: {},
      protectedPaths: [],
    });
  });

  it("returns a deeply frozen definition", async () => {
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInCompletionSteps });
    const agent = await loadAgent("iterator", { cwd });
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.runner.backend.allowedTools)).toBe(true);
    expect(
      Object.isFrozen(agent.registry.completionSteps["complete.issue"]?.completionConditions[0]),
    ).toBe(true);
    expect(() => {
      (agent.runner as { maxIterations: number }).maxIterations = 99;
    }).toThrow(TypeError);
  });

  it("resolves parameters, validators and patterns", async () => {
    const dir = await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { budgets: { validatorTimeoutMs: 5000 } } },
      registry: {
        ...registryInCompletionSteps,
        completionPatterns: { ...patterns, "file-not-exists": {} },
        validators: {
          ...validators,
          "report-written": {
            type: "file",
            path: "docs/*.md",
            contains: "/done/i",
            failurePattern: "file-not-exists",
          },
          "custom-check": {
            type: "custom",
            module: "checks/check.js",
            failurePattern: "test-failed",
          },
          slow: {
            type: "command",
            command: "sleep 1",
            timeoutMs: 42,
            failurePattern: "test-failed",
          },
        },
      },
    });
    const { parameters, registry } = await loadAgent("iterator", { cwd });
    expect(parameters.issue).toEqual({
      name: "issue",
      type: "number",
      required: true,
      flag: "--issue",
      description: "Issue number",
    });
    expect(registry.validators["git-clean"]).toMatchObject({
      type: "command",
      successWhen: { kind: "empty" },
      successWhenText: "empty",
      timeoutMs: 5000,
    });
    expect(registry.validators["tests-pass"]).toMatchObject({
      successWhen: { kind: "exitCode", code: 0 },
    });
    expect(registry.validators.slow).toMatchObject({
      timeoutMs: 42,
      successWhenText: "exitCode:0",
    });
    expect(registry.validators["report-written"]).toEqual({
      name: "report-written",
      type: "file",
      path: "docs/*.md",
      contains: "/done/i",
      failurePattern: "file-not-exists",
      extractParams: {},
      reruns: 0,
      cache: true,
    });
    expect(registry.validators["custom-check"]).toMatchObject({
      module: path.join(dir, "checks", "check.js"),
      timeoutMs: 5000,
    });
    expect(registry.completionPatterns["file-not-exists"]).toEqual({
      name: "file-not-exists",
      description: "",
      edition: "failed",
      adaptation: "file-not-exists",
      params: [],
    });
  });

  it("loads a definition whose references dangle (closer validate reports those)", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        steps: { "initial.issue": { next: "missing.step", completionStep: "missing.completion" } },
        completionSteps: {
          "complete.issue": {
            c2: "retry",
            c3: "issue",
            completionConditions: [{ validator: "no-such-validator" }],
          },
        },
        validators: {
          "git-clean": {
            type: "command",
            command: "git status",
            failurePattern: "no-such-pattern",
          },
        },
      },
    });
    const agent = await loadAgent("iterator", { cwd });
    expect(agent.registry.steps["initial.issue"]?.next).toBe("missing.step");
  });

  it("refuses an entry step that is not a step, in the file that names it", async () => {
    const dir = await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { entryStep: "nowhere" } },
      registry: { ...registryInCompletionSteps, entryStep: "initial.issue" },
    });
    const [problem, ...others] = await problemsOf("iterator");
    expect(others).toEqual([]);
    expect(problem?.fields).toMatchObject({
      file: path.join(dir, "agent.json"),
      jsonPath: "runner.entryStep",
    });
    expect(problem?.message).toContain('"nowhere"');
    expect(problem?.message).toContain('"initial.issue"');
  });

  it("reads the registry from runner.registry", async () => {
    const dir = await writeAgent("iterator", {
      agent: { ...iteratorAgent, runner: { registry: "config/registry.json" } },
      registry: registryInCompletionSteps,
      registryName: "config/registry.json",
    });
    const agent = await loadAgent("iterator", { cwd });
    expect(agent.files.registry).toBe(path.join(dir, "config", "registry.json"));
  });
});

describe("readAgent", () => {
  it("returns the agent with its problems when both files are well-formed", async () => {
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, name: "other" },
      registry: registryInCompletionSteps,
    });
    const reading = await readAgent("iterator", cwd);
    expect(reading.problems.map((problem) => problem.fields.jsonPath)).toEqual(["name"]);
    expect(reading.agent?.registry.entryStep).toBe("initial.issue");
    expect(reading.description).toBe(iteratorAgent.description);
  });

  it("returns no agent when a file does not pass its schema", async () => {
    await writeAgent("iterator", {
      agent: { ...iteratorAgent, colour: "blue" },
      registry: registryInCompletionSteps,
    });
    const reading = await readAgent("iterator", cwd);
    expect(reading.agent).toBeUndefined();
    expect(reading.problems.map((problem) => problem.fields.jsonPath)).toEqual(["colour"]);
  });
});

describe("listAgents", () => {
  it("lists nothing when there is no .agent folder", async () => {
    expect(await listAgents(cwd)).toEqual([]);
  });

  it("lists every agent by name, a broken one with its error", async () => {
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInCompletionSteps });
    await writeAgent("broken", {
      agent: { name: "broken", description: "half done", runner: { nope: 1 } },
      registry: { steps: { "a.b": {} } },
    });
    await writeAgent("empty", {});
    await writeFile(path.join(cwd, ".agent", "notes.txt"), "not an agent");
    const listing = await listAgents(cwd);
    expect(listing.map((agent) => agent.name)).toEqual(["broken", "empty", "iterator"]);
    const [broken, empty, iterator] = listing;
    expect(iterator).toEqual({
      name: "iterator",
      description: iteratorAgent.description,
      dir: path.join(cwd, ".agent", "iterator"),
    });
    expect(broken?.description).toBe("half done");
    expect(broken?.error).toBeInstanceOf(CloserErrorList);
    expect(empty?.error?.code).toBe("not_found");
  });
});
