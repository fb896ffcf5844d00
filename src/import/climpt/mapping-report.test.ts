import { describe, expect, it } from "vitest";
import { FileMapping } from "./mapping-report.js";

describe("FileMapping: every key is either mapped, dropped, or listed as having no equivalent", () => {
  const source = {
    name: "x",
    runner: { flow: { systemPromptPath: "prompts/system.md", extra: 1 }, flowX: { a: 1 } },
    steps: { "initial.issue": { c2: "initial", usesStdin: false } },
    version: "1.0.0",
  };

  it("lists the topmost key of each part nothing took", () => {
    const mapping = new FileMapping("agent.json", source);
    mapping.mapped(["name"], "agent.json name");
    mapping.mapped(["runner", "flow", "systemPromptPath"], "prompts/system.md");
    mapping.mapped(["steps", "initial.issue", "c2"], 'steps["initial.issue"].c2');
    mapping.dropped(["version"], "closer has no version");
    const entries = mapping.finish();
    expect(entries.filter((entry) => entry.to === undefined).map((entry) => entry.from)).toEqual([
      "version",
      "runner.flow.extra",
      "runner.flowX",
      'steps["initial.issue"].usesStdin',
    ]);
    expect(entries.find((entry) => entry.from === "version")?.note).toBe("closer has no version");
  });

  it("lists nothing more when a whole subtree is taken", () => {
    const mapping = new FileMapping("agent.json", source);
    for (const key of ["name", "runner", "steps", "version"]) mapping.mapped([key], key);
    expect(mapping.finish().every((entry) => entry.to !== undefined)).toBe(true);
  });
});
