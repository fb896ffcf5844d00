import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderPrompt } from "./render-prompt.js";

describe("renderPrompt", () => {
  let agentDir: string;
  beforeEach(async () => {
    agentDir = await mkdtemp(join(tmpdir(), "closer-prompt-"));
  });
  afterEach(async () => {
    await rm(agentDir, { recursive: true, force: true });
  });
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(agentDir, path)), { recursive: true });
    await writeFile(join(agentDir, path), text);
  };
  const retryWords = {
    c1: "steps",
    c2: "retry",
    c3: "issue",
    edition: "failed",
    adaptation: "git-dirty",
  };

  it("renders the step template and reports its path relative to the agent folder", async () => {
    await put(
      "prompts/steps/initial/issue/f_default.md",
      "Work on {{task.title}} (iteration {{iteration}})",
    );
    const rendered = await renderPrompt({
      agentDir,
      words: { c1: "steps", c2: "initial", c3: "issue", edition: "default" },
      variables: { task: { title: "T" }, iteration: 1 },
    });
    expect(rendered).toEqual({
      text: "Work on T (iteration 1)",
      templatePath: "prompts/steps/initial/issue/f_default.md",
    });
  });

  it("fails for a missing step prompt, naming where it looked", async () => {
    await expect(
      renderPrompt({
        agentDir,
        words: { c1: "steps", c2: "initial", c3: "issue", edition: "default" },
        variables: {},
      }),
    ).rejects.toThrow("prompts/steps/initial/issue/f_default.md");
  });

  it("falls back to the built-in text listing the pattern and its params", async () => {
    const rendered = await renderPrompt({
      agentDir,
      words: retryWords,
      variables: {
        changedFiles: ["src/a.ts"],
        untrackedFiles: [],
        attempt: 1,
        previousSummary: "",
      },
      retry: { pattern: "git-dirty", params: ["changedFiles", "untrackedFiles"] },
    });
    expect(rendered.templatePath).toBe("builtin:retry");
    expect(rendered.text).toContain('"git-dirty"');
    expect(rendered.text).toContain("changedFiles:\n  - src/a.ts");
    expect(rendered.text).toContain("untrackedFiles:\n  (none)");
  });

  it("prefers f_failed.md over the built-in text", async () => {
    await put("prompts/steps/retry/issue/f_failed.md", "Pattern {{pattern}} failed");
    const rendered = await renderPrompt({
      agentDir,
      words: retryWords,
      variables: { pattern: "git-dirty" },
      retry: { pattern: "git-dirty", params: [] },
    });
    expect(rendered).toEqual({
      text: "Pattern git-dirty failed",
      templatePath: "prompts/steps/retry/issue/f_failed.md",
    });
  });

  it("throws a strict error naming the template path and the variable", async () => {
    await put("prompts/steps/retry/issue/f_failed_git-dirty.md", "{{changedFiles}} {{secret}}");
    await expect(
      renderPrompt({
        agentDir,
        words: retryWords,
        variables: { changedFiles: [] },
        retry: { pattern: "git-dirty", params: ["changedFiles"] },
      }),
    ).rejects.toMatchObject({
      fields: { file: "prompts/steps/retry/issue/f_failed_git-dirty.md" },
      message: expect.stringContaining('"secret"'),
    });
  });
});
