import { describe, expect, it } from "vitest";
import {
  conditions,
  cwd,
  iteratorAgent,
  patterns,
  registryInCompletionSteps,
  registryInSteps,
  useTempCwd,
  validators,
  writeAgent,
} from "../../test/support/agent-folder.js";
import type { CompletionStepDefinition } from "../ports/registry.js";
import { loadAgent } from "./load-agent.js";

useTempCwd();

describe("loadAgent: the spellings of docs/definition.md#completion-step-spellings", () => {
  it("loads both registry spellings of a completion step into the same definition", async () => {
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInSteps });
    const fromSteps = await loadAgent("iterator", { cwd });
    await writeAgent("iterator", { agent: iteratorAgent, registry: registryInCompletionSteps });
    const fromCompletionSteps = await loadAgent("iterator", { cwd });
    const { prompt, ...completionStep } = fromCompletionSteps.registry.completionSteps[
      "complete.issue"
    ] as CompletionStepDefinition;
    expect(prompt).toEqual({ c2: "closure", c3: "issue", edition: "default" });
    expect(fromSteps).toEqual({
      ...fromCompletionSteps,
      registry: {
        ...fromCompletionSteps.registry,
        completionSteps: { "complete.issue": completionStep },
      },
    });
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

  it("loads the registry example of docs/definition.md#steps-registry as written", async () => {
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
      closureReview: { c2: "complete", c3: "issue", session: "fresh", maxRejections: 3 },
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

  it("loads a completionSteps entry (docs/definition.md#completion-step-spellings) with its own prompt and output schema", async () => {
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
      c2: "retry",
      c3: "issue",
      prompt: { c2: "closure", c3: "issue" },
      outputSchemaRef: { file: "issue.schema.json", schema: "closure.issue" },
      onFailure: { action: "retry", maxAttempts: 2 },
    });
  });

  it("keeps c2/c3 as the retry folder beside the step's own prompt (docs/definition.md#seed-spellings)", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        validators,
        steps: { "initial.issue": {} },
        completionSteps: {
          "closure.issue": {
            c2: "retry",
            c3: "closing",
            prompt: { c2: "closure", c3: "issue" },
            completionConditions: [{ validator: "git-clean" }],
          },
        },
      },
    });
    const step = (await loadAgent("iterator", { cwd })).registry.completionSteps["closure.issue"];
    expect(step).toMatchObject({
      c2: "retry",
      c3: "closing",
      prompt: { c2: "closure", c3: "issue" },
    });
  });

  it("carries a condition's params (docs/definition.md#seed-spellings) into the definition", async () => {
    await writeAgent("iterator", {
      agent: iteratorAgent,
      registry: {
        validators,
        steps: { "initial.issue": { completionStep: "complete.issue" } },
        completionSteps: {
          "complete.issue": {
            c2: "retry",
            c3: "issue",
            completionConditions: [
              { validator: "git-clean", params: { paths: ["src"], strict: true } },
              { validator: "tests-pass" },
            ],
          },
        },
      },
    });
    const step = (await loadAgent("iterator", { cwd })).registry.completionSteps["complete.issue"];
    expect(step?.completionConditions).toEqual([
      { validator: "git-clean", params: { paths: ["src"], strict: true } },
      { validator: "tests-pass" },
    ]);
  });

  it("reads the format check in the spelling of docs/definition.md#completion-step-spellings (check.responseFormat, check.onFail.maxRetries)", async () => {
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
});
