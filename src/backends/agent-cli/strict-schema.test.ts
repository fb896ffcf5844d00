import { describe, expect, it } from "vitest";
import { SchemaValidators } from "../../completion/schema-validators.js";
import { dropNullOptionals, strictSchema } from "./strict-schema.js";

const schema = {
  type: "object",
  required: ["status", "next_action"],
  properties: {
    status: { type: "string", enum: ["in_progress", "completed"] },
    note: { type: "string" },
    count: { type: ["integer"] },
    kind: { const: "step" },
    next_action: {
      type: "object",
      required: ["action"],
      properties: {
        action: { type: "string" },
        reason: { type: "string" },
      },
    },
    details: { type: "object", properties: { line: { type: "integer" } } },
    choice: { anyOf: [{ type: "string" }, { type: "integer" }] },
    checklist: {
      type: "array",
      items: {
        type: "object",
        required: ["item"],
        properties: { item: { type: "string" }, evidence: { type: "string" } },
      },
    },
  },
};

describe("strictSchema", () => {
  const strict = strictSchema(schema) as {
    required: string[];
    additionalProperties: boolean;
    properties: Record<string, Record<string, unknown>>;
  };

  it("closes every object and lists every property as required", () => {
    expect(strict.additionalProperties).toBe(false);
    expect(strict.required).toEqual(Object.keys(schema.properties));
    expect(strict.properties.next_action).toMatchObject({
      required: ["action", "reason"],
      additionalProperties: false,
    });
    const items = (strict.properties.checklist as { items: Record<string, unknown> }).items;
    expect(items).toMatchObject({ required: ["item", "evidence"], additionalProperties: false });
  });

  it("keeps required properties as they were and makes optional ones nullable", () => {
    expect(strict.properties.status).toEqual({
      type: "string",
      enum: ["in_progress", "completed"],
    });
    expect(strict.properties.note).toEqual({ type: ["string", "null"] });
    expect(strict.properties.count).toEqual({ type: ["integer", "null"] });
    expect(strict.properties.kind).toEqual({ anyOf: [{ const: "step" }, { type: "null" }] });
    expect(strict.properties.choice).toEqual({
      anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }],
    });
    expect(strict.properties.details).toEqual({
      anyOf: [
        {
          type: "object",
          properties: { line: { type: ["integer", "null"] } },
          required: ["line"],
          additionalProperties: false,
        },
        { type: "null" },
      ],
    });
  });

  it("adds null to the enum of a nullable enum", () => {
    const strictEnum = strictSchema({
      type: "object",
      properties: { level: { type: "string", enum: ["low", "high"] } },
    }) as { properties: { level: unknown } };
    expect(strictEnum.properties.level).toEqual({
      type: ["string", "null"],
      enum: ["low", "high", null],
    });
  });

  it("leaves the original schema untouched", () => {
    const before = JSON.stringify(schema);
    strictSchema(schema);
    expect(JSON.stringify(schema)).toBe(before);
  });
});

describe("dropNullOptionals", () => {
  it("drops the nulls of optional properties at any depth, so the original schema accepts the answer", () => {
    const answer = {
      status: "completed",
      note: null,
      count: null,
      kind: null,
      next_action: { action: "complete", reason: null },
      details: null,
      choice: null,
      checklist: [{ item: "tests", evidence: null }],
    };
    const strictCheck = new SchemaValidators().check(answer, strictSchema(schema));
    expect(strictCheck.valid).toBe(true);
    const read = dropNullOptionals(answer, schema);
    expect(read).toEqual({
      status: "completed",
      next_action: { action: "complete" },
      checklist: [{ item: "tests" }],
    });
    expect(new SchemaValidators().check(read, schema).valid).toBe(true);
  });

  it("keeps a null of a required property, for the check to report", () => {
    expect(dropNullOptionals({ status: null }, schema)).toEqual({ status: null });
  });
});
