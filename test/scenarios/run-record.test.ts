import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_ADD, makeTaskRepo, runTask } from "./support/task-agent.js";

async function readAll(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  const texts = await Promise.all(
    files.map((file) => readFile(join(file.parentPath, file.name), "utf8")),
  );
  return texts.join("\n");
}

describe("scenarios: the run record", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("never makes the working tree dirty: runs go under the git folder", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    expect(result.runDir.startsWith(join(setup.repo.dir, ".git"))).toBe(true);
    expect(await repoStatus(setup.repo)).toBe("");
    expect(await readdir(join(result.runDir, "prompts"))).toEqual([
      "iteration-001.md",
      "iteration-002.md",
    ]);
    expect(await readdir(join(result.runDir, "transcripts"))).toEqual([
      "iteration-001.json",
      "iteration-002.json",
    ]);
  });

  it("keeps secrets of the environment out of every file it writes", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const token = "ghp_0123456789abcdefSECRET";
    const backend = makeScriptedBackend([
      { structuredOutput: { ...DONE, summary: `used token ${token}` }, text: `token=${token}` },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend, {
      env: { GITHUB_TOKEN: token, HOME: "/home/someone" },
      task: { kind: "text", title: "fix add", body: `the token is ${token}` },
    });

    const everything = await readAll(result.runDir);
    expect(everything).not.toContain(token);
    expect(everything).toContain("[redacted]");
    expect(backend.calls[0]?.prompt).toContain(token);
  });
});

async function repoStatus(repo: { git(...args: string[]): Promise<{ stdout: string }> }) {
  return (await repo.git("status", "--porcelain")).stdout;
}
