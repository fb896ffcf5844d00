import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCloserError } from "../../src/errors.js";
import type { Issue } from "../../src/ports/github.js";
import { makeIssueTask, parseTaskText, readTaskFile, taskFromText } from "../../src/run/index.js";

describe("task text", () => {
  it("takes the first Markdown heading as the title and the rest as the body", () => {
    const task = parseTaskText("Intro line\n\n## Fix the login ##\n\nSteps:\n- one\n");
    expect(task).toEqual({
      kind: "text",
      title: "Fix the login",
      body: "Intro line\n\n\nSteps:\n- one",
    });
  });

  it("takes the first non-blank line when there is no heading", () => {
    expect(parseTaskText("\n\nMake tests pass\nthey fail on CI\n")).toEqual({
      kind: "text",
      title: "Make tests pass",
      body: "they fail on CI",
    });
  });

  it("keeps the whole --task text as the body", () => {
    expect(taskFromText("Make it fast\nthe loop is slow")).toEqual({
      kind: "text",
      title: "Make it fast",
      body: "Make it fast\nthe loop is slow",
    });
  });

  it("rejects an empty --task", () => {
    expect(() => taskFromText("  \n")).toThrow(/--task is empty/);
  });
});

describe("readTaskFile", () => {
  let folder = "";
  afterEach(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("reads a file relative to the given folder", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-task-"));
    await writeFile(join(folder, "TASK.md"), "# Add zeta\n\nAdd zeta.txt with one line.\n");
    expect(await readTaskFile("TASK.md", folder)).toEqual({
      kind: "text",
      title: "Add zeta",
      body: "Add zeta.txt with one line.",
    });
  });

  it("says clearly that a missing file does not exist, naming it", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-task-"));
    const error = await readTaskFile("nope.md", folder).catch((caught: unknown) => caught);
    expect(isCloserError(error) && error.code).toBe("usage_error");
    expect(isCloserError(error) && error.describe()).toContain(join(folder, "nope.md"));
    expect(isCloserError(error) && error.describe()).toContain("does not exist");
  });

  it("rejects an empty file", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-task-"));
    await writeFile(join(folder, "EMPTY.md"), "\n\n");
    await expect(readTaskFile("EMPTY.md", folder)).rejects.toThrow(/empty/);
  });
});

describe("the task limit", () => {
  const bigText = `# Too much\n${"x".repeat(1024 * 1024)}`;

  it("refuses a --task over 1 MiB as a usage error naming the flag and the limit", () => {
    const refused = (() => {
      try {
        return taskFromText(bigText);
      } catch (error) {
        return error;
      }
    })();
    expect(isCloserError(refused) && refused.code).toBe("usage_error");
    expect(String((refused as Error).message)).toBe(
      "the task given with --task is too large: 1.0 MB, the limit is 1 MiB",
    );
  });

  it("refuses an issue whose body and comments are over 1 MiB, naming the issue", () => {
    const issue = {
      number: 7,
      title: "Big",
      body: "x".repeat(600_000),
      url: "https://example.test/7",
      state: "open",
      labels: [],
      comments: [{ author: "a", body: "y".repeat(600_000) }],
    } as unknown as Issue;
    expect(() => makeIssueTask(issue)).toThrow(/issue #7 .* is too large: 1\.2 MB/);
    expect(makeIssueTask({ ...issue, comments: [] }).task.body).toHaveLength(600_000);
  });
});
