import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRunJson, runFolders } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

const INITIAL = "prompts/steps/initial/issue/f_default.md";
const RETRY = "prompts/steps/retry/issue/f_failed_check-failed.md";

/** Every file under a folder, relative to it. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await filesUnder(dir, path)));
    else files.push(path);
  }
  return files;
}

/** Saves a file the way a Windows editor does: a UTF-8 byte order mark and CRLF line ends. */
async function saveAsWindows(file: string): Promise<void> {
  const text = await readFile(file, "utf8");
  await writeFile(file, `\uFEFF${text.replace(/\n/g, "\r\n")}`);
}

describe("Definition files", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  fault(
    {
      what: "a step template nests {{#if}} blocks 10,000 deep",
      does: "closer validate exits 2 at once, naming the template file, the line and the limit of 100, and how to flatten it",
    },
    async () => {
      const deep = `# {{task.title}}\n${"{{#if task.body}}".repeat(10_000)}x${"{{/if}}".repeat(10_000)}\n`;
      repo = await makeFaultRepo({ prompts: { "steps/initial/issue/f_default.md": deep } });
      const before = await takeUserState(repo.dir);
      const result = await cli("validate", repo.agent, "--cwd", repo.dir);
      expect(result.code).toBe(2);
      const said = result.stdout + result.stderr;
      expect(said).toContain(INITIAL);
      expect(said).toContain("template nests blocks more than 100 deep (line 2)");
      expect(said).toMatch(/flatten the template/);
      const run = await cli(
        "run",
        repo.agent,
        "--task",
        "do it",
        "--cwd",
        repo.dir,
        "--no-worktree",
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("more than 100 deep");
      expect(await runFolders(repo.dir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "a step template is larger than 256 KiB",
      does: "closer validate exits 2 naming the template file, its size and the limit, and says to move long text into a file the model reads",
    },
    async () => {
      const huge = `# {{task.title}}\n${"reference text, over and over.\n".repeat(9000)}`;
      repo = await makeFaultRepo({ prompts: { "steps/initial/issue/f_default.md": huge } });
      const before = await takeUserState(repo.dir);
      const result = await cli("validate", repo.agent, "--cwd", repo.dir);
      expect(result.code).toBe(2);
      const said = result.stdout + result.stderr;
      expect(said).toContain(INITIAL);
      expect(said).toMatch(/template is \d+(\.\d)? KiB; the limit is 256 KiB/);
      expect(said).toContain("put long reference text in a file");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "every file of the definition was saved by a Windows editor (UTF-8 byte order mark, CRLF line ends), templates with front matter",
      does: "closer validate passes; the step and retry prompts as sent carry no byte order mark, no front matter and only LF line ends; the run completes",
    },
    async () => {
      repo = await makeFaultRepo({
        files: { BROKEN: "broken\n" },
        prompts: {
          "steps/initial/issue/f_default.md":
            "---\nparams: [task]\n---\n# {{task.title}}\n\n{{task.body}}\n",
          "steps/retry/issue/f_failed_check-failed.md":
            "---\nparams: [errorOutput]\n---\nThe check still fails:\n\n{{errorOutput}}\n",
        },
        program: [
          'import { execSync } from "node:child_process";',
          'import { existsSync } from "node:fs";',
          READ_PROMPT,
          'if (prompt.includes("still fails") && existsSync("BROKEN")) execSync("git rm --quiet BROKEN && git commit --quiet -m fix");',
          DONE_ANSWER,
        ].join("\n"),
      });
      const agentDir = join(repo.dir, ".agent/faulty");
      for (const file of await filesUnder(agentDir)) await saveAsWindows(join(agentDir, file));
      expect((await readFile(join(agentDir, INITIAL))).subarray(0, 3)).toEqual(
        Buffer.from([0xef, 0xbb, 0xbf]),
      );
      expect(await stat(join(agentDir, RETRY))).toBeTruthy();
      await repo.commitAll("the definition as saved on Windows");
      const taken = await takeUserState(repo.dir);
      const { BROKEN: _removedByTheTask, ...kept } = taken.files;
      const before = { ...taken, files: kept };

      const validated = await cli("validate", repo.agent, "--cwd", repo.dir);
      expect(validated.code, validated.stderr + validated.stdout).toBe(0);
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "remove BROKEN",
        "--cwd",
        repo.dir,
        "--no-worktree",
        "--json",
      );
      expect(result.code, result.stderr).toBe(0);
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed", iteration: 2 });
      const sent = [
        await readFile(join(runDir, "prompts/iteration-001.md"), "utf8"),
        await readFile(join(runDir, "prompts/iteration-002.md"), "utf8"),
      ];
      expect(sent[0]).toMatch(/^# remove BROKEN/);
      expect(sent[1]).toMatch(/^The check still fails:/);
      for (const prompt of sent) {
        expect(prompt).not.toContain("\uFEFF");
        expect(prompt).not.toContain("\r");
        expect(prompt).not.toContain("---");
        expect(prompt).not.toContain("params:");
      }
      await expectUserStateKept(repo.dir, before, { movedBranches: ["main"] });
    },
    60_000,
  );
});
