import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import {
  onlyRunFolder,
  readRecordedEvents,
  readRunJson,
  runFolders,
} from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

const BUDGETS = { queryTimeoutMs: 20_000, validatorTimeoutMs: 20_000 };

describe("The command backend", () => {
  let repo: FaultRepo | undefined;
  let outside: string | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
    if (outside !== undefined) await rm(outside, { recursive: true, force: true });
    outside = undefined;
  });

  fault(
    {
      what: "the command program reports its usage and cost on a line of its own, and spends past maxCostUsd",
      does: "the usage line is counted, not read as the answer: the cost and tokens add up in the record and the run ends budget_exhausted (exit 1) without a warning that the budget cannot be enforced",
    },
    async () => {
      repo = await makeFaultRepo({
        program: `${READ_PROMPT}
console.log(JSON.stringify({ status: "in_progress", summary: "still working", next_action: { action: "continue", reason: "more to do" } }));
console.log(JSON.stringify({ usage: { inputTokens: 1000, outputTokens: 200 }, costUsd: 0.6 }));
`,
        runner: { budgets: { ...BUDGETS, maxCostUsd: 1 }, maxIterations: 5 },
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code).toBe(1);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(outcome).toMatchObject({ status: "budget_exhausted", iterations: 2 });
      expect(outcome.costUsd).toBeCloseTo(1.2);
      expect(outcome.reason).toContain("reached the budget of $1");
      expect(result.stderr).not.toContain("cannot be enforced");
      const runDir = await onlyRunFolder(repo.dir);
      const events = await readRecordedEvents(runDir);
      const ends = events.filter((event) => event.type === "backend-end");
      expect(ends.map((event) => event.costUsd)).toEqual([0.6, 0.6]);
      expect(ends[0]?.usage).toEqual({
        inputTokens: 1000,
        outputTokens: 200,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      });
      expect(events.filter((event) => event.type === "decision")).toEqual([
        expect.objectContaining({ decision: "incomplete", source: "structured-from-text" }),
        expect.objectContaining({ decision: "incomplete", source: "structured-from-text" }),
      ]);
      const state = await readRunJson(runDir);
      expect(state.status).toBe("budget_exhausted");
      expect(state.totals).toMatchObject({ usage: { inputTokens: 2000, outputTokens: 400 } });
      expect(state.warnings).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "a command program with a cost budget that reports no cost",
      does: "the run warns once that maxCostUsd cannot be enforced (the program printed no usage line) and otherwise goes on",
    },
    async () => {
      repo = await makeFaultRepo({
        runner: { budgets: { ...BUDGETS, maxCostUsd: 1 } },
      });
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code, result.stderr).toBe(0);
      const state = await readRunJson(await onlyRunFolder(repo.dir));
      expect(state.warnings).toEqual([
        expect.stringContaining(
          "maxCostUsd cannot be enforced: the command program reported no cost",
        ),
      ]);
      expect(result.stderr).toContain("print a usage line with costUsd");
    },
    60_000,
  );

  fault(
    {
      what: "the agent has a system prompt (prompts/system.md) and runs on the command backend",
      does: "the program gets it as a file named by CLOSER_SYSTEM_PROMPT_FILE, outside the working tree and removed after the query; the prompt on stdin is unchanged",
    },
    async () => {
      // What the program saw goes in the tree's ignored scratch/ folder, where it may write.
      repo = await makeFaultRepo({
        prompts: { "system.md": "You are the widget fixer. SYSTEM-MARKER-42\n" },
        program: `import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
${READ_PROMPT}
const file = process.env.CLOSER_SYSTEM_PROMPT_FILE;
mkdirSync("scratch", { recursive: true });
writeFileSync("scratch/seen.json", JSON.stringify({ file, text: readFileSync(file, "utf8"), prompt }));
${DONE_ANSWER}
`,
      });
      const seen = join(repo.dir, "scratch/seen.json");
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(result.code, result.stderr).toBe(0);
      const got = JSON.parse(await readFile(seen, "utf8")) as Record<string, string>;
      expect(got.text).toContain("SYSTEM-MARKER-42");
      expect(got.prompt).not.toContain("SYSTEM-MARKER-42");
      expect(got.file?.startsWith(repo.dir)).toBe(false);
      await expect(readFile(got.file ?? "", "utf8")).rejects.toThrow();
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "replayFrom leads out of the agent folder (a ../ path, or a link to a file elsewhere)",
      does: "a ../ path is a definition error at load and in closer validate (exit 2: agent.json, runner.backend.replayFrom, the fix) before any run folder; a link out is refused when the recording is read (exit 2) and nothing outside is read",
    },
    async () => {
      outside = await mkdtemp(join(tmpdir(), "closer-fault-recording-"));
      const recording = join(outside, "session.json");
      await writeFile(
        recording,
        JSON.stringify({
          version: 1,
          turns: [{ text: "SECRET-OUTSIDE", files: { "x.txt": "x" } }],
        }),
      );
      repo = await makeFaultRepo({
        runner: { backend: { kind: "replay", replayFrom: "../../../session.json" } },
      });
      const before = await takeUserState(repo.dir);
      const validate = await cli("validate", repo.agent, "--cwd", repo.dir);
      expect(validate.code).toBe(2);
      const report = validate.stdout + validate.stderr;
      expect(report).toContain("agent.json");
      expect(report).toContain("runner.backend.replayFrom");
      expect(report).toContain("leaves the agent folder");
      const run = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("runner.backend.replayFrom");
      expect(run.stderr).toContain("inside the agent folder");
      expect(await runFolders(repo.dir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);

      const agentJson = join(repo.dir, ".agent/faulty/agent.json");
      const definition = JSON.parse(await readFile(agentJson, "utf8"));
      definition.runner.backend.replayFrom = "recorded.json";
      await writeFile(agentJson, JSON.stringify(definition));
      await symlink(recording, join(repo.dir, ".agent/faulty/recorded.json"));
      const beforeLink = await takeUserState(repo.dir);
      const linked = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir, "--json");
      expect(linked.code).toBe(2);
      expect(linked.stdout).toContain("leads out of the agent folder");
      expect(linked.stdout).not.toContain("SECRET-OUTSIDE");
      const runDir = await onlyRunFolder(repo.dir);
      expect((await readRunJson(runDir)).status).toBe("error");
      await expect(readFile(join(repo.dir, "x.txt"), "utf8")).rejects.toThrow();
      await expectUserStateKept(repo.dir, beforeLink);
    },
    60_000,
  );
});
