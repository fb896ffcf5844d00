import { afterEach, describe, expect, it } from "vitest";
import { lintAgentFolder } from "../../src/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { makeTestAgent, STEP_SCHEMA, type TestAgentOptions } from "../support/test-agent.js";

/** Seed 001's completion schema: the answer must report its own checks in `validation`. */
const COMPLETE_ISSUE = {
  type: "object",
  required: ["status", "summary", "validation"],
  properties: {
    status: { type: "string" },
    summary: { type: "string" },
    next_action: {
      type: "object",
      properties: { action: { type: "string" }, reason: { type: "string" } },
    },
    validation: {
      type: "object",
      required: ["git_clean", "type_check_passed"],
      properties: { git_clean: { type: "boolean" }, type_check_passed: { type: "boolean" } },
    },
  },
};

const SEED_001_COMPLETION = {
  outputSchemaRef: { file: "issue.schema.json", schema: "complete.issue" },
};

/** A seed-001-like issue agent: work steps in `step`, the completion step in `complete.issue`. */
function seedAgent(
  options: { step?: unknown; completionStep?: Record<string, unknown> } & TestAgentOptions = {},
) {
  const { step, completionStep, ...rest } = options;
  return makeTestAgent({
    name: "iterator",
    c3: "issue",
    completionStep: { ...SEED_001_COMPLETION, ...completionStep },
    schemas: {
      "issue.schema.json": { step: step ?? STEP_SCHEMA, "complete.issue": COMPLETE_ISSUE },
    },
    ...rest,
  });
}

describe("closer validate: a completion schema the declaring answer cannot satisfy", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function validate(agent: ReturnType<typeof makeTestAgent>) {
    repo = await makeFixtureRepo({ files: {}, agents: [agent] });
    const report = await lintAgentFolder("iterator", repo.dir);
    const errors = report.problems.filter((problem) => problem.severity === "error");
    return { report, errors };
  }

  it("reports seed 001's complete.issue requiring validation after a step whose schema has none", async () => {
    const { report, errors } = await validate(seedAgent());
    expect(report.valid).toBe(false);
    expect(errors).toHaveLength(2);
    const [initial, continuation] = errors;
    expect(initial?.message).toContain('completion step "complete.issue"');
    expect(initial?.message).toContain('step "initial.issue"');
    expect(continuation?.message).toContain('step "continuation.issue"');
    expect(initial?.message).toContain('schema "complete.issue" of schemas/issue.schema.json');
    expect(initial?.message).toContain('schema "step" of schemas/issue.schema.json');
    expect(initial?.message).toContain('requires "validation"');
    expect(initial?.jsonPath).toContain("complete.issue");
    expect(initial?.fix).toContain('add "validation" to the properties of schema "step"');
    expect(initial?.fix).toContain('"prompt"');
  });

  it("passes when the step's schema can carry what the completion schema requires", async () => {
    const step = {
      ...STEP_SCHEMA,
      properties: { ...STEP_SCHEMA.properties, validation: COMPLETE_ISSUE.properties.validation },
    };
    const { errors } = await validate(seedAgent({ step }));
    expect(errors).toEqual([]);
  });

  it("passes when the step's schema leaves extra properties open", async () => {
    const { errors } = await validate(
      seedAgent({ step: { ...STEP_SCHEMA, additionalProperties: true } }),
    );
    expect(errors).toEqual([]);
  });

  it("passes when the steps answer free-form (no output schema)", async () => {
    const { errors } = await validate(seedAgent({ textOnly: true }));
    expect(errors).toEqual([]);
  });

  it("passes when the completion step asks in a prompt of its own, answered in its schema", async () => {
    const { errors } = await validate(
      seedAgent({
        completionStep: { prompt: { c2: "closure", c3: "issue" } },
        prompts: { "steps/closure/issue/f_default.md": "Report your checks.\n" },
      }),
    );
    expect(errors).toEqual([]);
  });

  it("reports a nested property the step's schema cannot give", async () => {
    const step = {
      ...STEP_SCHEMA,
      properties: {
        ...STEP_SCHEMA.properties,
        validation: { type: "object", properties: { git_clean: { type: "boolean" } } },
      },
    };
    const { errors } = await validate(seedAgent({ step }));
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('requires "validation.type_check_passed"'),
      expect.stringContaining('requires "validation.type_check_passed"'),
    ]);
  });

  it("reports a property the step's schema requires and the completion schema forbids", async () => {
    const step = {
      ...STEP_SCHEMA,
      required: ["status", "stepId"],
      properties: { ...COMPLETE_ISSUE.properties, stepId: { type: "string" } },
    };
    const { errors } = await validate(seedAgent({ step }));
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('does not allow "stepId"'),
      expect.stringContaining('does not allow "stepId"'),
    ]);
  });

  it("reports responseFormat.requiredFields the step's schema cannot give", async () => {
    const { errors } = await validate(
      seedAgent({
        completionStep: {
          outputSchemaRef: undefined,
          responseFormat: { type: "json", requiredFields: ["next_action.action", "evidence"] },
        },
      }),
    );
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('requires "evidence"'),
      expect.stringContaining('requires "evidence"'),
    ]);
    expect(errors[0]?.jsonPath).toContain("requiredFields");
  });
});
