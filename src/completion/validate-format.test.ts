import { describe, expect, it } from "vitest";
import type { ResponseFormat } from "../ports/registry.js";
import { SchemaValidators, validateStructuredOutput } from "./schema-validators.js";
import { describeFormat, validateFormat } from "./validate-format.js";

const STEP_SCHEMA = {
  type: "object",
  required: ["status", "next_action"],
  additionalProperties: false,
  properties: {
    status: { type: "string", enum: ["completed", "in_progress"] },
    next_action: {
      type: "object",
      required: ["action"],
      additionalProperties: false,
      properties: { action: { type: "string" }, reason: { type: "string" } },
    },
  },
};

describe("validateFormat", () => {
  const json: ResponseFormat = { type: "json", requiredFields: ["status", "next_action.action"] };
  const cases: {
    name: string;
    response: { structuredOutput?: unknown; text: string };
    format: ResponseFormat;
    valid: boolean;
    error?: string;
  }[] = [
    {
      name: "docs/completion.md#format-check json: structured output with the required fields is valid",
      response: {
        structuredOutput: { status: "completed", next_action: { action: "complete" } },
        text: "",
      },
      format: json,
      valid: true,
    },
    {
      name: "docs/completion.md#format-check json: a JSON object in the text is accepted when there is no structured output",
      response: { text: 'Done.\n{"status": "completed", "next_action": {"action": "complete"}}' },
      format: json,
      valid: true,
    },
    {
      name: "docs/completion.md#format-check json: a missing required field is a format error naming the field",
      response: { structuredOutput: { status: "completed", next_action: {} }, text: "" },
      format: json,
      valid: false,
      error: "next_action.action",
    },
    {
      name: "docs/completion.md#format-check json: no JSON at all is a format error",
      response: { text: "all done" },
      format: json,
      valid: false,
      error: "no structured output",
    },
    {
      name: "docs/completion.md#format-check text-pattern: a matching line is valid",
      response: { text: "Summary\nRESULT: ok\n" },
      format: { type: "text-pattern", pattern: "^RESULT: (ok|fail)$" },
      valid: true,
    },
    {
      name: "docs/completion.md#format-check text-pattern: no match is a format error",
      response: { text: "RESULT maybe" },
      format: { type: "text-pattern", pattern: "^RESULT: (ok|fail)$" },
      valid: false,
      error: "does not match",
    },
    {
      name: "docs/completion.md#format-check text-pattern: an invalid pattern is reported, not thrown",
      response: { text: "x" },
      format: { type: "text-pattern", pattern: "(" },
      valid: false,
      error: "invalid pattern",
    },
    {
      name: "docs/completion.md#format-check action-block: a fenced agent-action block with JSON is valid",
      response: { text: 'Closing.\n```agent-action\n{"type": "close", "summary": "done"}\n```\n' },
      format: { type: "action-block" },
      valid: true,
    },
    {
      name: "docs/completion.md#format-check action-block: the action type must match when given",
      response: { text: '```agent-action\n{"type": "comment"}\n```' },
      format: { type: "action-block", actionType: "close" },
      valid: false,
      error: '"close"',
    },
    {
      name: "docs/completion.md#format-check action-block: any block of the right type is enough",
      response: {
        text: '```agent-action\n{"type": "comment"}\n```\n```agent-action\n{"type": "close"}\n```',
      },
      format: { type: "action-block", actionType: "close" },
      valid: true,
    },
    {
      name: "docs/completion.md#format-check action-block: a block that is not JSON is a format error",
      response: { text: "```agent-action\nclose the issue\n```" },
      format: { type: "action-block" },
      valid: false,
      error: "not valid JSON",
    },
    {
      name: "docs/completion.md#format-check action-block: no block is a format error",
      response: { text: '```json\n{"type": "close"}\n```' },
      format: { type: "action-block" },
      valid: false,
      error: "no ```agent-action block",
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const result = validateFormat(testCase.response, testCase.format);
      expect(result.valid).toBe(testCase.valid);
      if (testCase.valid) expect(result.extracted).toBeDefined();
      else expect(result.error).toContain(testCase.error);
    });
  }

  it("docs/completion.md#format-check json: with a schema, the first errors are reported with their instance paths", () => {
    const result = validateFormat(
      {
        structuredOutput: { status: "finished", next_action: { action: "complete", extra: 1 } },
        text: "",
      },
      json,
      { schema: STEP_SCHEMA },
    );
    expect(result.valid).toBe(false);
    expect(result.error).toContain("/status");
    expect(result.error).toContain("/next_action");
    expect(result.error).toContain("extra");
  });

  it("docs/completion.md#format-check json: the extracted object is the one that was checked", () => {
    const output = { status: "completed", next_action: { action: "complete" } };
    const result = validateFormat({ structuredOutput: output, text: "" }, json, {
      schema: STEP_SCHEMA,
    });
    expect(result).toEqual({ valid: true, extracted: output });
  });

  it("describeFormat says what was expected", () => {
    expect(describeFormat(json)).toContain("next_action.action");
    expect(describeFormat({ type: "action-block", actionType: "close" })).toContain("close");
  });
});

describe("validateStructuredOutput", () => {
  it("docs/completion.md#format-check structured output failing its schema is invalid, with every problem located", () => {
    const result = validateStructuredOutput({ status: 3 }, STEP_SCHEMA);
    expect(result.valid).toBe(false);
    expect(result.problems.map((problem) => problem.instancePath)).toContain("/status");
    expect(result.problems.some((problem) => problem.message.includes("next_action"))).toBe(true);
  });

  it("docs/completion.md#format-check missing structured output is invalid", () => {
    const result = validateStructuredOutput(undefined, STEP_SCHEMA);
    expect(result.valid).toBe(false);
    expect(result.error).toContain("missing");
  });

  it("compiles each schema once per SchemaValidators instance and keeps instances apart", () => {
    const validators = new SchemaValidators();
    const valid = { status: "completed", next_action: { action: "complete" } };
    expect(validateStructuredOutput(valid, STEP_SCHEMA, validators).valid).toBe(true);
    expect(validateStructuredOutput({ status: "x" }, STEP_SCHEMA, validators).valid).toBe(false);
    const withId = { $id: "https://example.com/step", ...STEP_SCHEMA };
    expect(validators.check(valid, withId).valid).toBe(true);
    expect(validators.check(valid, { ...withId }).valid).toBe(true);
  });

  it("honours a draft 2020-12 schema", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }],
      items: false,
    };
    expect(validateStructuredOutput(["a"], schema).valid).toBe(true);
    expect(validateStructuredOutput(["a", "b"], schema).valid).toBe(false);
  });

  it("a schema ajv cannot compile is a CloserError", () => {
    expect(() => validateStructuredOutput({}, { type: "no-such-type" })).toThrow(
      /not a valid JSON Schema/,
    );
  });
});
