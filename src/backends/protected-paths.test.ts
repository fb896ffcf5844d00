import { describe, expect, it } from "vitest";
import { protectedPathDenial, protectedPathRules } from "./protected-paths.js";

const PROTECTED = ["/repo/.agent/tasker", "/repo/vitest.config.ts"];

describe("protectedPathDenial", () => {
  it("denies a write to a protected file or inside a protected folder, relative or absolute", () => {
    expect(
      protectedPathDenial("Write", { file_path: "vitest.config.ts" }, "/repo", PROTECTED),
    ).toContain("is protected");
    expect(
      protectedPathDenial(
        "Edit",
        { file_path: "/repo/.agent/tasker/steps_registry.json" },
        "/repo",
        PROTECTED,
      ),
    ).toContain("is protected");
    expect(
      protectedPathDenial("MultiEdit", { file_path: "../.agent/tasker/x" }, "/repo/src", PROTECTED),
    ).toBeDefined();
  });

  it("lets the code, a sibling with a shared prefix, and reading tools through", () => {
    expect(protectedPathDenial("Write", { file_path: "src/add.js" }, "/repo", PROTECTED)).toBe(
      undefined,
    );
    expect(
      protectedPathDenial("Write", { file_path: "/repo/.agent/tasker2/a" }, "/repo", PROTECTED),
    ).toBe(undefined);
    expect(
      protectedPathDenial("Read", { file_path: "/repo/vitest.config.ts" }, "/repo", PROTECTED),
    ).toBe(undefined);
  });

  it("writes Claude Code deny rules with absolute paths", () => {
    expect(protectedPathRules(PROTECTED)).toEqual([
      "Edit(//repo/.agent/tasker)",
      "Edit(//repo/vitest.config.ts)",
    ]);
  });
});
