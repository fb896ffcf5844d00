import { mkdir, readFile, writeFile } from "node:fs/promises";
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

describe("closer validate", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  /** `closer validate` of the fault repo's agent, after `change` edits its agent.json. */
  async function validate(change?: (agent: { runner: Record<string, unknown> }) => void) {
    if (repo === undefined) throw new Error("no repo");
    if (change !== undefined) {
      const file = join(repo.dir, ".agent/faulty/agent.json");
      const agent = JSON.parse(await readFile(file, "utf8"));
      change(agent);
      await writeFile(file, JSON.stringify(agent, null, 2));
      await repo.commitAll("agent changed");
    }
    const before = await takeUserState(repo.dir);
    const result = await cli("validate", repo.agent, "--cwd", repo.dir);
    expect(await runFolders(repo.dir)).toEqual([]);
    await expectUserStateKept(repo.dir, before);
    return result;
  }

  fault(
    {
      what: "runner.systemPrompt names a file that does not exist",
      does: "validate exits 2 naming agent.json's runner.systemPrompt, the missing path and the fix; a run refuses the agent before any query",
    },
    async () => {
      repo = await makeFaultRepo();
      const result = await validate((agent) => {
        agent.runner.systemPrompt = "prompts/sytem.md";
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(/agent\.json.*runner\.systemPrompt/);
      expect(result.stdout).toContain("prompts/sytem.md does not exist");
      expect(result.stdout).toContain("correct runner.systemPrompt");
      const run = await cli("run", repo.agent, "--task", "do it", "--cwd", repo.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("runner.systemPrompt");
      expect(await runFolders(repo.dir)).toEqual([]);
    },
  );

  fault(
    {
      what: "a custom validator module has a syntax error",
      does: "validate imports it in a child process and exits 2 naming the registry field, the file, the SyntaxError and its line",
    },
    async () => {
      repo = await makeFaultRepo({
        validators: {
          "widget-ok": {
            type: "custom",
            module: "validators/widget-ok.mjs",
            failurePattern: "check-failed",
          },
        },
        conditions: ["widget-ok"],
      });
      const folder = join(repo.dir, ".agent/faulty/validators");
      await mkdir(folder, { recursive: true });
      await writeFile(
        join(folder, "widget-ok.mjs"),
        "export default function () {\n  return { valid: true };\n}\nconst broken = ;\n",
      );
      await repo.commitAll("custom validator");
      const result = await validate();
      expect(result.code).toBe(2);
      expect(result.stdout).toContain("steps_registry.json");
      expect(result.stdout).toContain("widget-ok");
      expect(result.stdout).toContain("validators/widget-ok.mjs");
      expect(result.stdout).toContain("SyntaxError");
      expect(result.stdout).toMatch(/widget-ok\.mjs:4/);
      expect(result.stdout).toContain("fix the syntax error");
    },
  );

  fault(
    {
      what: "labels are configured with closeAction close, where they are never applied",
      does: "validate warns naming runner.github.labels and the fix (label-and-close), and still exits 0",
    },
    async () => {
      repo = await makeFaultRepo({ github: { closeAction: "close" } });
      const result = await validate();
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/warning/i);
      expect(result.stdout).toContain("runner.github.labels");
      expect(result.stdout).toContain('"label-and-close"');
      expect(result.stdout).toContain("is valid");
    },
  );

  fault(
    {
      what: "a test script exits 127 because a tool it calls is missing (npm test found, ./tools/lint.sh not)",
      does: "a failed check, not a configuration error: the model gets the output in its retry prompt, adds the tool, and the run completes",
    },
    async () => {
      repo = await makeFaultRepo({
        files: {
          "package.json": JSON.stringify({
            name: "widgets",
            private: true,
            scripts: { test: "./tools/lint.sh && node check.mjs" },
          }),
        },
        // The second answer reads the check's output in the retry prompt and adds the tool.
        program: `import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
${READ_PROMPT}
if (/lint\\.sh: (?:\\d+: )?(?:.*)not found/.test(prompt)) {
  mkdirSync("tools", { recursive: true });
  writeFileSync("tools/lint.sh", "#!/bin/sh\\nexit 0\\n");
  chmodSync("tools/lint.sh", 0o755);
}
${DONE_ANSWER}
`,
        validators: {
          "tests-pass": {
            type: "command",
            command: "npm test",
            successWhen: "exitCode:0",
            failurePattern: "check-failed",
            extractParams: { errorOutput: "stderr" },
          },
        },
        conditions: ["tests-pass"],
      });
      const before = await takeUserState(repo.dir);
      const result = await cli("run", repo.agent, "--task", "lint the widgets", "--cwd", repo.dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/configuration error|config_error/i);
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed" });
      const checks = (await readRecordedEvents(runDir)).filter(
        (event) => event.type === "validator-end",
      );
      expect(checks.map((event) => [event.valid, event.exitCode])).toEqual([
        [false, 127],
        [true, 0],
      ]);
      await expectUserStateKept(repo.dir, before);
    },
  );
});
