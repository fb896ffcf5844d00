import { describe, expect, it } from "vitest";
import type { ParameterDefinition } from "../ports/agent.js";
import type { IterationSummary, TaskInfo } from "../ports/run-state.js";
import {
  makeVariables,
  RETRY_VARIABLES,
  RUNNER_VARIABLES,
  renderIterationSummary,
  renderParams,
  TASK_FIELDS,
} from "./variables.js";

const task: TaskInfo = { kind: "text", title: "Add a flag", body: "Please add --dry-run." };
const base = {
  parameters: { issue: 12 },
  iteration: 2,
  maxIterations: 20,
  runId: "run-1",
  checkId: "check-1",
  task,
};

describe("makeVariables", () => {
  it("supplies every runner variable and every task field", () => {
    const variables = makeVariables(base);
    for (const name of RUNNER_VARIABLES) expect(variables).toHaveProperty(name);
    for (const field of TASK_FIELDS) expect(variables.task).toHaveProperty(field);
    expect(variables).toMatchObject({ issue: 12, iteration: 2, maxIterations: 20, runId: "run-1" });
    expect(variables.task).toMatchObject({ title: "Add a flag", url: "" });
  });

  it("gives each declared parameter a key: the given value, else its default, else empty", () => {
    const definition = (
      name: string,
      extra: Partial<ParameterDefinition> = {},
    ): ParameterDefinition => ({
      name,
      type: "string",
      required: false,
      flag: `--${name}`,
      description: "",
      ...extra,
    });
    const variables = makeVariables({
      ...base,
      parameters: { given: "yes" },
      parameterDefinitions: {
        given: definition("given", { default: "no" }),
        defaulted: definition("defaulted", { default: "main" }),
        absent: definition("absent"),
      },
    });
    expect(variables).toMatchObject({ given: "yes", defaulted: "main", absent: "" });
  });

  it("lets runner variables win over a parameter of the same name", () => {
    expect(makeVariables({ ...base, parameters: { iteration: "x" } }).iteration).toBe(2);
  });

  it("adds the retry variables and the extracted params only for retries", () => {
    const plain = makeVariables(base);
    for (const name of RETRY_VARIABLES) expect(plain).not.toHaveProperty(name);
    const failedTests = [{ name: "adds", error: "expected 3" }];
    const retry = makeVariables({
      ...base,
      retry: { pattern: "test-failed", attempt: 2, params: { failedTests, errorOutput: "" } },
    });
    expect(retry).toMatchObject({
      pattern: "test-failed",
      attempt: 2,
      failedTests,
      errorOutput: "",
    });
    expect(retry.failureDetails).toContain("name: adds; error: expected 3");
  });
});

describe("renderIterationSummary", () => {
  it("is empty before the first iteration", () => {
    expect(renderIterationSummary(undefined)).toBe("");
  });

  it("states what the model declared and then what the harness found", () => {
    const summary: IterationSummary = {
      iteration: 3,
      status: "completed",
      nextAction: "complete",
      reason: "all done",
      toolsUsed: ["Edit", "Bash"],
      errors: [],
      failedCheck: { validator: "tests-pass", pattern: "test-failed", detail: "2 tests failed" },
    };
    const text = renderIterationSummary(summary);
    expect(text).toContain("iteration 3");
    expect(text).toContain("status: completed");
    expect(text).toContain("next action: complete");
    expect(text).toContain("reason: all done");
    expect(text).toContain("tools used: Edit, Bash");
    expect(text).toContain('"tests-pass" failed (pattern "test-failed"): 2 tests failed');
    expect(text.indexOf("status: completed")).toBeLessThan(text.indexOf("What closer found"));
  });

  it("says so when there was no structured output and nothing failed", () => {
    const text = renderIterationSummary({ iteration: 1, toolsUsed: [], errors: [] });
    expect(text).toContain("nothing (no structured output)");
    expect(text).toContain("no check failed");
  });
});

describe("renderParams", () => {
  it("renders strings, lists and empty values as plain text", () => {
    const text = renderParams({ changedFiles: ["a.ts", "b.ts"], errorOutput: "", exitCode: 1 });
    expect(text).toBe("changedFiles:\n  - a.ts\n  - b.ts\nerrorOutput:\n  (none)\nexitCode:\n  1");
  });
});
