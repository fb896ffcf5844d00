import { describe, expect, it } from "vitest";
import { CLOSURE_REVIEW_SCHEMA } from "../completion/closure-review.js";
import { SchemaValidators } from "../completion/schema-validators.js";
import { exampleOf } from "./schema-example.js";
import {
  appendSchemaInstructions,
  describeShape,
  describeType,
  schemaInstructions,
} from "./schema-instructions.js";

const stepSchema = {
  type: "object",
  additionalProperties: false,
  required: ["status", "next_action", "checks"],
  properties: {
    status: {
      type: "string",
      enum: ["in_progress", "completed"],
      description: "completed only when the work is done",
    },
    summary: { type: "string" },
    next_action: {
      type: "object",
      additionalProperties: false,
      required: ["action"],
      properties: {
        action: { type: "string", enum: ["continue", "complete"] },
        reason: { type: "string" },
      },
    },
    checks: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["name", "passed", "count", "ratio"],
        properties: {
          name: { type: "string", minLength: 1 },
          passed: { type: "boolean" },
          count: { type: "integer", minimum: 1 },
          ratio: { type: "number" },
          at: { type: "string", format: "date-time" },
        },
      },
    },
    tags: { type: "array", items: { type: "string" } },
    note: { type: ["string", "null"] },
    kind: { const: "step" },
    choice: { anyOf: [{ type: "integer" }, { type: "null" }] },
  },
};

/** The example of each schema, checked with the validator closer checks answers with. */
function exampleIsValid(schema: Record<string, unknown>): boolean {
  return new SchemaValidators().check(exampleOf(schema), schema).valid;
}

describe("describeShape", () => {
  const lines = describeShape(stepSchema);

  it("lists each property with required or optional, its type and its description", () => {
    expect(lines).toContain(
      '- `status` (required): string, one of "in_progress", "completed" — completed only when the work is done',
    );
    expect(lines).toContain("- `summary` (optional): string");
    expect(lines).toContain("- `note` (optional): string or null");
    expect(lines).toContain('- `kind` (optional): exactly "step"');
    expect(lines).toContain("- `choice` (optional): one of: integer | null");
  });

  it("indents the properties of nested objects and of array items under their parent", () => {
    const at = lines.indexOf("- `next_action` (required): object");
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  - `action` (required): string, one of "continue", "complete"',
      "  - `reason` (optional): string",
      "  - no other fields",
    ]);
    expect(lines).toContain("- `checks` (required): array of objects, each:");
    expect(lines).toContain("  - `count` (required): integer");
    expect(lines).toContain("  - `at` (optional): string");
    expect(lines).toContain("- `tags` (optional): array, each item: string");
    expect(lines.at(-1)).toBe("- no other fields");
  });
});

describe("describeType", () => {
  it("names arrays of enums and schemas without a type", () => {
    expect(describeType({ type: "array", items: { type: "string", enum: ["a"] } })).toBe(
      'array, each item: string, one of "a"',
    );
    expect(describeType({ properties: {} })).toBe("object");
    expect(describeType(true)).toBe("any JSON value");
  });
});

describe("exampleOf", () => {
  it("fills only the required fields with the smallest values", () => {
    expect(exampleOf(stepSchema)).toEqual({
      status: "in_progress",
      next_action: { action: "continue" },
      checks: [{ name: "x", passed: false, count: 1, ratio: 0 }],
    });
  });

  it("is valid for the schemas it is built from", () => {
    expect(exampleIsValid(stepSchema)).toBe(true);
    expect(exampleIsValid(CLOSURE_REVIEW_SCHEMA)).toBe(true);
    expect(
      exampleIsValid({
        type: "object",
        required: ["at", "level", "id", "value"],
        properties: {
          at: { type: "string", format: "date-time" },
          level: { type: "integer", exclusiveMinimum: 2 },
          id: { oneOf: [{ type: "string", format: "uuid" }, { type: "integer" }] },
          value: { type: ["null", "number"], maximum: -3 },
        },
      }),
    ).toBe(true);
  });
});

describe("schemaInstructions", () => {
  const text = schemaInstructions(stepSchema);

  it("asks for the JSON object at the end of the answer", () => {
    expect(text).toMatch(/^## Answer format\n/);
    expect(text).toContain("End your answer with one JSON object");
    expect(text).toContain("no text after it");
  });

  it("shows the shape and a fenced example that parses to the example value", () => {
    expect(text).toContain("- `status` (required)");
    const fenced = /```json\n([\s\S]*?)\n```/.exec(text)?.[1];
    expect(JSON.parse(fenced ?? "")).toEqual(exampleOf(stepSchema));
  });

  it("names the value of a schema that is not an object", () => {
    expect(schemaInstructions({ type: "string", enum: ["yes", "no"] })).toContain(
      'The value: string, one of "yes", "no".',
    );
  });

  it("is appended after the prompt, separated by a blank line", () => {
    expect(appendSchemaInstructions("Do the work.\n\n", stepSchema)).toBe(
      `Do the work.\n\n${text}`,
    );
  });
});
