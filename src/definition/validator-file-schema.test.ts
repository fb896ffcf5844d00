import { describe, expect, it } from "vitest";
import { validatorSchema } from "./validator-file-schema.js";

describe("validatorSchema reruns", () => {
  const command = { type: "command", command: "npm test", failurePattern: "test-failed" };
  const custom = { type: "custom", module: "check.mjs", failurePattern: "test-failed" };

  it("defaults to no re-run and takes a whole number on every type", () => {
    expect(validatorSchema.parse(command).reruns).toBe(0);
    expect(validatorSchema.parse({ ...command, reruns: 2 }).reruns).toBe(2);
    expect(validatorSchema.parse({ ...custom, reruns: 1 }).reruns).toBe(1);
    const file = { type: "file", path: "README.md", failurePattern: "test-failed", reruns: 3 };
    expect(validatorSchema.parse(file).reruns).toBe(3);
  });

  it.each([-1, 1.5, "2", null])("refuses reruns %j", (reruns) => {
    expect(validatorSchema.safeParse({ ...command, reruns }).success).toBe(false);
  });
});
