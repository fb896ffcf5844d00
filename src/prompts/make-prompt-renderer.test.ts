import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { makePromptRenderer } from "./make-prompt-renderer.js";
import { renderPrompt } from "./render-prompt.js";

describe("makePromptRenderer", () => {
  let agentDir: string;
  beforeEach(async () => {
    agentDir = await mkdtemp(join(tmpdir(), "closer-prompt-renderer-"));
  });
  afterEach(async () => {
    await rm(agentDir, { recursive: true, force: true });
  });
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(agentDir, path)), { recursive: true });
    await writeFile(join(agentDir, path), text);
  };
  const stepWords = { c1: "steps", c2: "initial", c3: "issue", edition: "default" };
  const retryWords = { c1: "steps", c2: "retry", c3: "issue", edition: "failed", adaptation: "x" };

  it("renders what renderPrompt renders, template path included", async () => {
    await put("prompts/steps/initial/issue/f_default.md", "Work on {{task.title}} ({{iteration}})");
    const render = makePromptRenderer();
    for (const iteration of [1, 2]) {
      const request = {
        agentDir,
        words: stepWords,
        variables: { task: { title: "T" }, iteration },
      };
      expect(await render(request)).toEqual(await renderPrompt(request));
    }
  });

  it("reads a template once: an edit during the run shows in the next renderer", async () => {
    const path = "prompts/steps/initial/issue/f_default.md";
    await put(path, "first {{iteration}}");
    const render = makePromptRenderer();
    const request = { agentDir, words: stepWords, variables: { iteration: 1 } };
    expect((await render(request)).text).toBe("first 1");
    await put(path, "second {{iteration}}");
    expect((await render(request)).text).toBe("first 1");
    expect((await makePromptRenderer()(request)).text).toBe("second 1");
  });

  it("stays strict on every render of a kept template", async () => {
    await put("prompts/steps/initial/issue/f_default.md", "Hi {{task.title}}");
    const render = makePromptRenderer();
    await render({ agentDir, words: stepWords, variables: { task: { title: "T" } } });
    const failure = await render({ agentDir, words: stepWords, variables: {} }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CloserError);
    expect((failure as CloserError).fields.file).toBe("prompts/steps/initial/issue/f_default.md");
    expect((failure as CloserError).message).toContain('"task');
  });

  it("falls back along the chain and to the built-in retry text", async () => {
    const render = makePromptRenderer();
    const retry = { pattern: "x", params: ["files"] };
    const builtin = await render({
      agentDir,
      words: retryWords,
      variables: { files: ["a.ts"], attempt: 1 },
      retry,
    });
    expect(builtin.templatePath).toBe("builtin:retry");
    expect(builtin.text).toContain("a.ts");
    await put("prompts/steps/retry/issue/f_failed.md", "fix {{pattern}}");
    const fromFile = await makePromptRenderer()({
      agentDir,
      words: retryWords,
      variables: { pattern: "x" },
      retry,
    });
    expect(fromFile).toEqual({
      text: "fix x",
      templatePath: "prompts/steps/retry/issue/f_failed.md",
    });
  });

  it("names every place it looked when no template exists", async () => {
    const failure = await makePromptRenderer()({ agentDir, words: stepWords, variables: {} }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CloserError);
    expect((failure as CloserError).message).toContain("prompts/steps/initial/issue/f_default.md");
  });
});
