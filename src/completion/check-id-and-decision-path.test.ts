import path from "node:path";
import { describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { makeCheckId, resolveDecisionPath } from "./decide-completion.js";

describe("makeCheckId", () => {
  it("docs/completion.md#check-id the check id is fresh for every check, from the injected id source", () => {
    const ids = ["id1", "id2"];
    const randomId = () => ids.shift() ?? "exhausted";
    const first = makeCheckId(randomId);
    const second = makeCheckId(randomId);
    expect(first).not.toBe(second);
    expect(first).toContain("id1");
  });
});

describe("resolveDecisionPath", () => {
  const cwd = path.join(path.sep, "work", "tree");
  it.each([
    ".closer/decision.json",
    "decision.txt",
    "./a/../b/decision.json",
    path.join(cwd, "x.json"),
  ])("docs/completion.md#decision-file %s inside the working tree resolves", (decisionFile) => {
    const resolved = resolveDecisionPath(cwd, decisionFile);
    expect(resolved.startsWith(`${cwd}${path.sep}`)).toBe(true);
  });

  it.each(["../decision.json", "/tmp/decision.json", "a/../../b", "", "."])(
    "docs/completion.md#decision-file a decision path outside the working tree (%s) is a configuration error",
    (decisionFile) => {
      let thrown: unknown;
      try {
        resolveDecisionPath(cwd, decisionFile, {
          file: "agent.json",
          jsonPath: "runner.decisionFile",
        });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CloserError);
      const error = thrown as CloserError;
      expect(error.code).toBe("config_error");
      expect(error.fields.file).toBe("agent.json");
      expect(error.fields.jsonPath).toBe("runner.decisionFile");
      expect(error.fields.fix).toBeDefined();
    },
  );
});
