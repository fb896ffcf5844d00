import { describe, expect, it } from "vitest";
import { boundDiffs, isTestPath, reviewEvidenceVariables } from "./review-evidence.js";

describe("isTestPath", () => {
  it.each([
    "src/add.test.ts",
    "web/button.spec.jsx",
    "test/add.js",
    "pkg/tests/helpers.py",
    "src/__tests__/a.js",
    "tests_of/test_add.py",
    "lib/add_test.py",
    "cmd/add_test.go",
  ])("holds tests: %s", (path) => {
    expect(isTestPath(path)).toBe(true);
  });

  it.each(["src/add.ts", "src/testing/fixture.ts", "contest/a.js", "latest.md"])(
    "holds no tests: %s",
    (path) => {
      expect(isTestPath(path)).toBe(false);
    },
  );
});

describe("boundDiffs", () => {
  it("keeps whole files under the limit, cuts the one that crosses it and names the rest", () => {
    const files = [
      { path: "a", diff: "a".repeat(6) },
      { path: "b", diff: "b".repeat(6) },
      { path: "c", diff: "c".repeat(6) },
    ];
    const text = boundDiffs(files, 10);
    expect(text).toContain("aaaaaa\nbbbb\n[… the diff of b is cut here: 2 more characters]");
    expect(text).toContain("[… not shown, over 10 characters: c]");
    expect(boundDiffs(files.slice(0, 1), 10)).toBe("aaaaaa");
  });
});

describe("reviewEvidenceVariables", () => {
  it("puts test and check files apart from the code, and says what the checks ran", () => {
    const variables = reviewEvidenceVariables({
      baselineCommit: "abc",
      changes: {
        stat: "3 files changed",
        files: [
          { path: "src/add.js", diff: "CODE" },
          { path: "test/add.test.js", diff: "TEST" },
          { path: "vitest.config.ts", diff: "CONFIG" },
        ],
      },
      checkFiles: ["vitest.config.ts"],
      checks: [
        {
          validator: "tests-pass",
          command: "node --test",
          valid: true,
          testsAtBaseline: 2,
          testsNow: 1,
        },
        { validator: "git-clean", valid: true },
      ],
      declaration: { status: "completed", summary: "fixed add" },
    });
    expect(variables).toEqual({
      baseline: { commit: "abc" },
      changes: { stat: "3 files changed", tests: "TEST\nCONFIG", code: "CODE" },
      checks: [
        "- tests-pass ran `node --test`: passed; tests at the baseline: 2, now: 1",
        "- git-clean: passed",
      ].join("\n"),
      declaration: "status: completed\nsummary: fixed add",
    });
  });
});
