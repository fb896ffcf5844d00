import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { assertC3lWords, explainBadWord, listPromptCandidates } from "./c3l.js";
import { locatePrompt } from "./render-prompt.js";

const retryWords = {
  c1: "steps",
  c2: "retry",
  c3: "issue",
  edition: "failed",
  adaptation: "test-failed",
};

describe("listPromptCandidates", () => {
  it("orders a retry lookup: adaptation, edition, f_failed, built-in", () => {
    expect(listPromptCandidates(retryWords, { retry: true })).toEqual([
      { path: "prompts/steps/retry/issue/f_failed_test-failed.md", kind: "adaptation" },
      { path: "prompts/steps/retry/issue/f_failed.md", kind: "edition" },
      { path: "builtin:retry", kind: "builtin" },
    ]);
  });

  it("gives a step prompt no f_failed or built-in fallback", () => {
    const words = {
      c1: "steps",
      c2: "initial",
      c3: "issue",
      edition: "default",
      adaptation: "short",
    };
    expect(
      listPromptCandidates(words, { retry: false }).map((candidate) => candidate.path),
    ).toEqual([
      "prompts/steps/initial/issue/f_default_short.md",
      "prompts/steps/initial/issue/f_default.md",
    ]);
  });

  it("adds f_failed.md after the edition file when the edition is not failed", () => {
    const words = { ...retryWords, edition: "retry" };
    expect(listPromptCandidates(words, { retry: true }).map((candidate) => candidate.kind)).toEqual(
      ["adaptation", "edition", "failed", "builtin"],
    );
  });
});

describe("path words", () => {
  it.each([
    ["..", "contains"],
    ["a..b", "contains"],
    ["../etc", "contains"],
    ["a/b", "separator"],
    ["Retry", "uppercase"],
    ["", "empty"],
    ["-x", "does not match"],
    ["a b", "does not match"],
  ])("refuses %j", (word, reason) => {
    expect(explainBadWord(word)).toContain(reason);
  });

  it.each(["default", "test-failed", "v1.2", "a_b", "0"])("accepts %j", (word) => {
    expect(explainBadWord(word)).toBeUndefined();
  });

  it("names the word, its field, its value and where it came from", () => {
    let caught: unknown;
    try {
      assertC3lWords(
        { ...retryWords, c3: "../../secrets" },
        { file: "steps_registry.json", jsonPath: 'steps["initial.issue"]' },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CloserError);
    const error = caught as CloserError;
    expect(error.message).toContain('c3 = "../../secrets"');
    expect(error.fields.jsonPath).toBe('steps["initial.issue"].c3');
    expect(error.fields.file).toBe("steps_registry.json");
  });
});

describe("locatePrompt", () => {
  let agentDir: string;
  beforeEach(async () => {
    agentDir = await mkdtemp(join(tmpdir(), "closer-c3l-"));
  });
  afterEach(async () => {
    await rm(agentDir, { recursive: true, force: true });
  });
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(agentDir, path)), { recursive: true });
    await writeFile(join(agentDir, path), text);
  };

  it("walks the fallback chain one file at a time", async () => {
    expect((await locatePrompt(agentDir, retryWords, { retry: true })).found?.kind).toBe("builtin");
    await put("prompts/steps/retry/issue/f_failed.md", "generic");
    expect((await locatePrompt(agentDir, retryWords, { retry: true })).source).toBe("generic");
    await put("prompts/steps/retry/issue/f_failed_test-failed.md", "specific");
    const located = await locatePrompt(agentDir, retryWords, { retry: true });
    expect(located.found?.path).toBe("prompts/steps/retry/issue/f_failed_test-failed.md");
    expect(located.source).toBe("specific");
  });

  it("finds nothing for a missing step prompt and lists where it looked", async () => {
    const words = { c1: "steps", c2: "initial", c3: "issue", edition: "default" };
    const located = await locatePrompt(agentDir, words, { retry: false });
    expect(located.found).toBeUndefined();
    expect(located.candidates.map((candidate) => candidate.path)).toEqual([
      "prompts/steps/initial/issue/f_default.md",
    ]);
  });

  it("refuses a word that would leave the agent folder before touching the disk", async () => {
    const words = { c1: "steps", c2: "..", c3: "issue", edition: "default" };
    await expect(locatePrompt(agentDir, words, { retry: false })).rejects.toThrow(/c2 = "\.\."/);
  });
});
