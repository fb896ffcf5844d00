import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError, CloserErrorList } from "../errors.js";
import { listAgents, loadAgent, readAgent } from "./load-agent.js";
import { EXTRACTOR_NAMES } from "./validator-file-schema.js";

let cwd: string;

beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), "closer-load-agent-"));
});

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

async function writeAgent(
  name: string,
  files: { agent?: Json | string; registry?: Json | string; registryName?: string },
): Promise<string> {
  const dir = path.join(cwd, ".agent", name);
  await mkdir(dir, { recursive: true });
  const text = (value: Json | string) =>
    typeof value === "string" ? value : JSON.stringify(value, null, 2);
  if (files.agent !== undefined) await writeFile(path.join(dir, "agent.json"), text(files.agent));
  if (files.registry !== undefined) {
    const registryFile = path.join(dir, files.registryName ?? "steps_registry.json");
    await mkdir(path.dirname(registryFile), { recursive: true });
    await writeFile(registryFile, text(files.registry));
  }
  return dir;
}

const patterns = {
  "git-dirty": {
    description: "uncommitted changes",
    edition: "failed",
    adaptation: "git-dirty",
    params: ["changedFiles", "untrackedFiles"],
  },
  "test-failed": {
    description: "tests fail",
    edition: "failed",
    adaptation: "test-failed",
    params: ["failedTests", "errorOutput"],
  },
};
const validators = {
  "git-clean": {
    type: "command",
    command: "git status --porcelain",
    successWhen: "empty",
    failurePattern: "git-dirty",
    extractParams: { changedFiles: "parseChangedFiles", untrackedFiles: "parseUntrackedFiles" },
  },
  "tests-pass": {
    type: "command",
    command: "npm test",
    successWhen: "exitCode:0",
    failurePattern: "test-failed",
    extractParams: { failedTests: "parseTestOutput", errorOutput: "stderr" },
  },
};
const workSteps = {
  "initial.issue": {
    name: "Start",
    outputSchemaRef: { file: "issue.schema.json", schema: "initial.issue" },
    next: "continuation.issue",
    completionStep: "complete.issue",
  },
  "continuation.issue": {
    name: "Continue",
    outputSchemaRef: { file: "issue.schema.json", schema: "continuation.issue" },
    completionStep: "complete.issue",
  },
};
const conditions = [{ validator: "git-clean" }, { validator: "tests-pass" }];

/** Seed 000's spelling: the completion step lives in `steps`, with `onFailure`. */
const registryInSteps = {
  agentId: "iterator",
  entryStep: "initial.issue",
  completionPatterns: patterns,
  validators,
  steps: {
    ...workSteps,
    "complete.issue": {
      stepId: "complete.issue",
      name: "Issue Complete Step",
      c2: "retry",
      c3: "issue",
      completionConditions: conditions,
      onFailure: { action: "retry", maxAttempts: 2 },
    },
  },
};

/** Seed 002's spelling: `completionSteps`, `prompt: {c1, c2, c3}` and `onFail: {retry, maxAttempts}`. */
const registryInCompletionSteps = {
  agentId: "iterator",
  entryStep: "initial.issue",
  completionPatterns: patterns,
  validators,
  steps: workSteps,
  completionSteps: {
    "complete.issue": {
      name: "Issue Complete Step",
      prompt: { c1: "steps", c2: "retry", c3: "issue" },
      completionConditions: conditions,
      onFail: { retry: true, maxAttempts: 2 },
    },
  },
};

const iteratorAgent = {
  name: "iterator",
  description: "Works on an issue until it is verifiably done",
  parameters: { issue: { type: "number", required: true, description: "Issue number" } },
};

async function loadError(name: string): Promise<CloserError> {
  try {
    await loadAgent(name, { cwd });
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected loadAgent to fail");
}

async function problemsOf(name: string): Promise<readonly CloserError[]> {
  const error = await loadError(name);
  expect(error).toBeInstanceOf(CloserErrorList);
  return (error as CloserErrorList).problems;
}

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
    expect(agent.runner.decisionFile).toBe(".closer/decision.json");
    expect(agent.runner.budgets).toEqual({
      queryTimeoutMs: 1_800_000,
      validatorTimeoutMs: 600_000,
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

  it("loads both registry spellings of a completion step into the same definition", async () => {
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInSteps });
    const fromSteps = await loadAgent("iterator", { cwd });
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInCompletionSteps });
    const fromCompletionSteps = await loadAgent("iterator", { cwd });
    expect(fromSteps).toEqual(fromCompletionSteps);
    expect(Object.keys(fromSteps.registry.steps)).toEqual(["initial.issue", "continuation.issue"]);
    expect(fromSteps.registry.completionSteps["complete.issue"]).toEqual({
      id: "complete.issue",
      name: "Issue Complete Step",
      c2: "retry",
      c3: "issue",
      completionConditions: conditions,
      onFailure: { action: "retry", maxAttempts: 2 },
      maxFormatRetries: 3,
    });
  });

  it("loads the registry example of SPEC §2.2 as written", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        agentId: "iterator",
        c1: "steps",
        entryStep: "initial.issue",
        completionSignal: { status: ["completed"], action: ["complete", "closing"] },
        completionPatterns: patterns,
        validators: {
          ...validators,
          "tests-pass": { ...validators["tests-pass"], timeoutMs: 600000 },
        },
        steps: {
          "initial.issue": {
            name: "Start",
            c2: "initial",
            c3: "issue",
            edition: "default",
            outputSchemaRef: { file: "issue.schema.json", schema: "initial.issue" },
            next: "continuation.issue",
            completionStep: "complete.issue",
          },
          "continuation.issue": {
            name: "Continue",
            c2: "continuation",
            c3: "issue",
            outputSchemaRef: { file: "issue.schema.json", schema: "continuation.issue" },
            completionStep: "complete.issue",
          },
        },
        completionSteps: {
          "complete.issue": {
            name: "Issue complete",
            c2: "retry",
            c3: "issue",
            responseFormat: { type: "json" },
            completionConditions: conditions,
            closureReview: { c2: "complete", c3: "issue" },
            onFailure: { action: "retry", maxAttempts: 3 },
          },
        },
      },
    });
    const { registry } = await loadAgent("iterator", { cwd });
    expect(registry.completionSteps["complete.issue"]).toEqual({
      id: "complete.issue",
      name: "Issue complete",
      c2: "retry",
      c3: "issue",
      responseFormat: { type: "json", requiredFields: [] },
      completionConditions: conditions,
      closureReview: { c2: "complete", c3: "issue" },
      onFailure: { action: "retry", maxAttempts: 3 },
      maxFormatRetries: 3,
    });
    expect(registry.steps["continuation.issue"]).toEqual({
      id: "continuation.issue",
      name: "Continue",
      c2: "continuation",
      c3: "issue",
      edition: "default",
      outputSchemaRef: { file: "issue.schema.json", schema: "continuation.issue" },
      completionStep: "complete.issue",
    });
  });

  it("loads seed 002's completion step with its own prompt and output schema", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        validators,
        steps: { "initial.issue": {} },
        completionSteps: {
          "closure.issue": {
            prompt: { c1: "steps", c2: "closure", c3: "issue" },
            outputSchemaRef: { file: "issue.schema.json", schema: "closure.issue" },
            completionConditions: [{ validator: "git-clean" }, { validator: "type-check" }],
            onFail: { retry: true, maxAttempts: 2 },
          },
        },
      },
    });
    const step = (await loadAgent("iterator", { cwd })).registry.completionSteps["closure.issue"];
    expect(step).toMatchObject({
      c2: "closure",
      c3: "issue",
      outputSchemaRef: { file: "issue.schema.json", schema: "closure.issue" },
      onFailure: { action: "retry", maxAttempts: 2 },
    });
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
    });
    expect(registry.validators["custom-check"]).toMatchObject({
      module: path.join(dir, "checks", "check.js"),
    });
    expect(registry.completionPatterns["file-not-exists"]).toEqual({
      name: "file-not-exists",
      description: "",
      edition: "failed",
      adaptation: "file-not-exists",
      params: [],
    });
  });

  it("reads the format check of seed 003 (check.responseFormat, check.onFail.maxRetries)", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        steps: { "initial.issue": { completionStep: "complete.issue" } },
        completionSteps: {
          "complete.issue": {
            c2: "retry",
            c3: "issue",
            check: {
              responseFormat: { type: "json", requiredFields: ["action"] },
              onFail: { maxRetries: 5 },
            },
            completionConditions: [],
            onFail: { retry: false },
          },
        },
      },
    });
    const step = (await loadAgent("iterator", { cwd })).registry.completionSteps["complete.issue"];
    expect(step?.responseFormat).toEqual({ type: "json", requiredFields: ["action"] });
    expect(step?.maxFormatRetries).toBe(5);
    expect(step?.onFailure).toEqual({ action: "abort", maxAttempts: 3 });
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

describe("loadAgent errors", () => {
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
