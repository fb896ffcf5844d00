import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, vi } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { git, TOKEN } from "../run/support/issue-repo.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import {
  longestEventLineBytes,
  onlyRunFolder,
  readRecordedEvents,
  readRunJson,
} from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** Source lines that give the model the decision file's path and its iteration (from the prompt's count). */
const DECISION_PATH = "const decisionFile = process.env.CLOSER_DECISION_FILE;";

/** The text files of the run folder (the model's decision files left out), joined. */
async function runFolderText(runDir: string): Promise<string> {
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !entry.name.startsWith("decision.json")) {
        texts.push(await readFile(path, "utf8"));
      }
    }
  };
  await walk(runDir);
  return texts.join("\n");
}

function decisionsOf(events: readonly Record<string, unknown>[]) {
  return events.filter((event) => event.type === "decision");
}

describe("Declarations and the decision file", () => {
  let repo: FaultRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github?.close();
    github = undefined;
    await repo?.cleanup();
    repo = undefined;
  });

  fault(
    {
      what: "the model makes the decision file a symbolic link to /etc/passwd",
      does: "the link is never followed: each declaration is undecidable (decision-file-not-regular) and the retry prompt says why; nothing of the target reaches a prompt or the record; exit 1 at max_iterations",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
rmSync(decisionFile, { force: true });
symlinkSync("/etc/passwd", decisionFile);
console.log("I wrote my decision to the decision file.");
`,
      });
      const passwdLine = (await readFile("/etc/passwd", "utf8")).split("\n")[0] ?? "root:x:0:0";
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code).toBe(1);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(outcome).toMatchObject({ status: "max_iterations", iterations: 3 });
      const runDir = await onlyRunFolder(repo.dir);
      const decisions = decisionsOf(await readRecordedEvents(runDir));
      expect(decisions.map((event) => event.reason)).toEqual([
        "decision-file-not-regular",
        "decision-file-not-regular",
        "decision-file-not-regular",
      ]);
      const retryPrompt = await readFile(join(runDir, "prompts/iteration-002.md"), "utf8");
      expect(retryPrompt).toContain("symbolic link");
      expect(await runFolderText(runDir)).not.toContain(passwdLine);
      expect(result.stderr).not.toContain(passwdLine);
      expect((await readRunJson(runDir)).status).toBe("max_iterations");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the decision file is a link to a 700 MB file, then a 700 MB file itself",
      does: "neither is read whole: the link is refused and the file is over the 64 KiB cap (decision-file-too-large), both undecidable with the reason in the retry prompt; the run goes on and ends max_iterations (exit 1) with a small record",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
rmSync(decisionFile, { force: true });
const huge = decisionFile + ".huge";
execFileSync("truncate", ["-s", "700M", prompt.includes("symbolic link") ? decisionFile : huge]);
if (!prompt.includes("symbolic link")) symlinkSync(huge, decisionFile);
// The decision file's folder is the run's own (the sandbox's scratch folder, gone after the run):
// what was made there is noted in the tree's ignored scratch/ folder.
mkdirSync("scratch", { recursive: true });
writeFileSync("scratch/made.txt", String(statSync(decisionFile).size));
console.log("decided");
`,
        runner: { maxIterations: 2 },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code).toBe(1);
      const runDir = await onlyRunFolder(repo.dir);
      const decisions = decisionsOf(await readRecordedEvents(runDir));
      expect(decisions.map((event) => [event.decision, event.reason])).toEqual([
        ["undecidable", "decision-file-not-regular"],
        ["undecidable", "decision-file-too-large"],
      ]);
      expect(await readFile(join(repo.dir, "scratch/made.txt"), "utf8")).toBe(
        String(700 * 1024 * 1024),
      );
      expect(await longestEventLineBytes(runDir)).toBeLessThan(20_000);
      expect((await runFolderText(runDir)).length).toBeLessThan(200_000);
      expect((await readRunJson(runDir)).status).toBe("max_iterations");
      await expectUserStateKept(repo.dir, before);
    },
    90_000,
  );

  fault(
    {
      what: "the model puts a FIFO, then a folder, at the decision file's path",
      does: "closer never opens the FIFO (no hang): both are undecidable (decision-file-not-regular, naming a FIFO and a folder) with a retry prompt that says so; exit 1 at max_iterations",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
rmSync(decisionFile, { force: true, recursive: true });
if (prompt.includes("a FIFO")) mkdirSync(decisionFile);
else execFileSync("mkfifo", [decisionFile]);
// What was made is noted in the tree's ignored scratch/ folder (the decision file's folder is the run's own).
mkdirSync("scratch", { recursive: true });
writeFileSync("scratch/made.txt", statSync(decisionFile).isDirectory() ? "folder" : "fifo");
console.log("decided");
`,
        runner: { maxIterations: 2 },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code).toBe(1);
      const runDir = await onlyRunFolder(repo.dir);
      const decisions = decisionsOf(await readRecordedEvents(runDir));
      expect(decisions.map((event) => event.reason)).toEqual([
        "decision-file-not-regular",
        "decision-file-not-regular",
      ]);
      expect(await readFile(join(runDir, "prompts/iteration-002.md"), "utf8")).toContain("a FIFO");
      expect(await readFile(join(repo.dir, "scratch/made.txt"), "utf8")).toBe("folder");
      expect((await readRunJson(runDir)).status).toBe("max_iterations");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "a --task --no-worktree run whose model declares only through the decision file, in a repository that does not ignore .closer/",
      does: "the decision file is in the run folder under .git, so git-clean passes and the run completes (exit 0) with the decision read from file-json; the working tree is left clean",
    },
    async () => {
      repo = await makeFaultRepo({
        files: { ".gitignore": "node_modules/\nmodel.mjs\n" },
        program: `import { writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
writeFileSync(decisionFile, JSON.stringify({ decision: "complete", check_id: process.env.CLOSER_CHECK_ID, reasons: ["nothing to change"] }));
console.log("The decision file says it all.");
`,
      });
      const before = await takeUserState(repo.dir);
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "do it",
        "--no-worktree",
        "--cwd",
        repo.dir,
        "--json",
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed", iterations: 1 });
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readRecordedEvents(runDir);
      expect(decisionsOf(events)).toEqual([
        expect.objectContaining({ source: "file-json", decision: "complete", checkIdMatch: true }),
      ]);
      expect(
        events.filter((event) => event.type === "validator-end").map((event) => event.valid),
      ).toEqual([true, true]);
      expect(await git(repo.dir, "status", "--porcelain")).toBe("");
      expect((await readRunJson(runDir)).status).toBe("completed");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "agent.json places the decision file in the working tree (runner.decisionFile), in a repository that does not ignore it",
      does: "closer adds that path to .git/info/exclude, so the model's decision file never fails git-clean: a --task --no-worktree run completes (exit 0)",
    },
    async () => {
      repo = await makeFaultRepo({
        files: { ".gitignore": "node_modules/\nmodel.mjs\n" },
        runner: { decisionFile: "answers/decision.json" },
        program: `import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
${READ_PROMPT}
${DECISION_PATH}
mkdirSync(dirname(decisionFile), { recursive: true });
writeFileSync(decisionFile, JSON.stringify({ decision: "complete", check_id: process.env.CLOSER_CHECK_ID }));
console.log("done");
`,
      });
      const before = await takeUserState(repo.dir);
      const result = await cli(
        "run",
        repo.agent,
        "--task",
        "do it",
        "--no-worktree",
        "--cwd",
        repo.dir,
        "--json",
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed" });
      expect(await readFile(join(repo.dir, "answers/decision.json"), "utf8")).toContain("complete");
      expect(await readFile(join(repo.dir, ".git/info/exclude"), "utf8")).toContain(
        "/answers/decision.json",
      );
      expect(await git(repo.dir, "status", "--porcelain")).toBe("");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the model answers that it is blocked (status blocked, with its reason)",
      does: "the run ends blocked at once (exit 1, no check runs): the model's reason is in the progress on stderr, the result JSON's reason and run.json",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `${READ_PROMPT}
console.log(JSON.stringify({ status: "Blocked", summary: "stuck", next_action: { action: "continue", reason: "the payment sandbox needs an API key nobody gave me" } }));
`,
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code).toBe(1);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(outcome).toMatchObject({ success: false, status: "blocked", iterations: 1 });
      expect(outcome.reason).toContain("the payment sandbox needs an API key nobody gave me");
      expect(result.stderr).toContain("the payment sandbox needs an API key nobody gave me");
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readRecordedEvents(runDir);
      expect(decisionsOf(events)).toEqual([
        expect.objectContaining({ decision: "blocked", source: "structured-from-text" }),
      ]);
      expect(events.filter((event) => event.type === "validator-start")).toEqual([]);
      const state = await readRunJson(runDir);
      expect(state.status).toBe("blocked");
      expect(state.reason).toContain("API key nobody gave me");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "on an issue, the model writes a decision file saying blocked, with its reasons",
      does: "the run ends blocked (exit 1); the issue's failure comment carries the model's reason, the issue stays open and the worktree is kept",
    },
    async () => {
      repo = await makeFaultRepo({
        parameters: { issue: { type: "number", description: "the issue" } },
        program: `import { writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
writeFileSync(decisionFile, JSON.stringify({ decision: "BLOCKED", check_id: process.env.CLOSER_CHECK_ID, reasons: ["the issue asks for two opposite behaviours"] }));
console.log("see the decision file");
`,
      });
      github = await startFakeGithub({
        token: TOKEN,
        issues: [{ number: 5, title: "Make widgets both red and blue", labels: ["ready"] }],
      });
      vi.stubEnv("GITHUB_TOKEN", TOKEN);
      vi.stubEnv("GITHUB_API_URL", github.url);
      const before = await takeUserState(repo.dir);
      const result = await cli(
        "run",
        repo.agent,
        "--issue",
        "5",
        "--repo",
        "acme/widgets",
        "--cwd",
        repo.dir,
        "--json",
      );
      expect(result.code, result.stderr).toBe(1);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(outcome).toMatchObject({
        status: "blocked",
        issue: 5,
        iterations: 1,
        worktree: { action: "kept" },
      });
      expect(outcome.reason).toContain("the issue asks for two opposite behaviours");
      const issue = github.state.issues[0];
      expect(issue?.state).toBe("open");
      expect(issue?.comments).toHaveLength(1);
      expect(issue?.comments[0]?.body).toContain("Status: blocked");
      expect(issue?.comments[0]?.body).toContain("the issue asks for two opposite behaviours");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the model declares done in capitals: status COMPLETED, action Complete",
      does: "status and action words are read without regard to case: the declaration starts the checks and the run completes (exit 0)",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `${READ_PROMPT}
console.log(JSON.stringify({ status: "COMPLETED", summary: "done", next_action: { action: "Complete", reason: "done" } }));
`,
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed", iterations: 1 });
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readRecordedEvents(runDir);
      expect(events.find((event) => event.type === "completion-signal")).toMatchObject({
        declared: true,
        status: "COMPLETED",
        action: "Complete",
      });
      expect((await readRunJson(runDir)).status).toBe("completed");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "the model answers in prose and declares complete in the JSON decision file, with a completion step whose schema asks for JSON",
      does: "the decision file's declaration is read and the stdout format check does not refute it (docs/completion.md#decision-file-over-format): no format retry, the checks pass and the run completes in 1 iteration (exit 0)",
    },
    async () => {
      repo = await makeFaultRepo({
        completionStep: { outputSchemaRef: { file: "issue.schema.json", schema: "step" } },
        program: `import { writeFileSync } from "node:fs";
${READ_PROMPT}
${DECISION_PATH}
writeFileSync(decisionFile, JSON.stringify({ decision: "complete", check_id: process.env.CLOSER_CHECK_ID, reasons: ["the check passes"] }));
console.log("I fixed the widgets; my decision is in the decision file.");
`,
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: "completed", iterations: 1 });
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readRecordedEvents(runDir);
      expect(decisionsOf(events)).toEqual([
        expect.objectContaining({ decision: "complete", source: "file-json", checkIdMatch: true }),
      ]);
      expect(events.filter((event) => event.type === "format-check")).toEqual([]);
      expect(result.stderr).not.toContain("could not be read");
      expect((await readRunJson(runDir)).status).toBe("completed");
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );
});
