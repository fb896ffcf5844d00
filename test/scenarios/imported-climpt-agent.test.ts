import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { importClimpt } from "../../src/import/climpt/import-climpt.js";
import { runAgent } from "../../src/loop/index.js";
import { resolveRunSettings } from "../../src/run/index.js";
import {
  type FixtureRepo,
  makeFixtureRepo,
  makeScriptedBackend,
  makeTestClock,
} from "../../src/testing/index.js";
import { makeEventLog, TASK } from "./support/task-agent.js";

/** A climpt agent in its current spelling: a work step that hands off to a closure step. */
const CLIMPT_AGENT: Readonly<Record<string, string>> = {
  "agent.json": JSON.stringify({
    name: "worker",
    version: "1.0.0",
    parameters: { issue: { type: "number", required: false, cli: "--issue" } },
    runner: {
      flow: { systemPromptPath: "prompts/system.md", prompts: { registry: "steps_registry.json" } },
      verdict: { type: "count:iteration", config: { maxIterations: 6 } },
      boundaries: { allowedTools: ["Read", "Bash"], permissionMode: "acceptEdits" },
    },
  }),
  "steps_registry.json": JSON.stringify({
    agentId: "worker",
    c1: "steps",
    entryStepMapping: { "count:iteration": "initial.chore" },
    failurePatterns: {
      "git-dirty": { edition: "failed", adaptation: "git-dirty", params: ["changedFiles"] },
    },
    validators: {
      "git-clean": {
        type: "command",
        command: "git status --porcelain",
        successWhen: "empty",
        failurePattern: "git-dirty",
        extractParams: { changedFiles: "parseChangedFiles" },
      },
    },
    validationSteps: {
      "closure.chore": {
        c2: "retry",
        c3: "chore",
        validationConditions: [{ validator: "git-clean" }],
      },
    },
    steps: {
      "initial.chore": {
        stepKind: "work",
        c2: "initial",
        c3: "chore",
        edition: "default",
        transitions: { next: { target: "continuation.chore" } },
      },
      "continuation.chore": {
        stepKind: "work",
        c2: "continuation",
        c3: "chore",
        edition: "default",
        transitions: {
          next: { target: "continuation.chore" },
          handoff: { target: "closure.chore" },
        },
      },
      "closure.chore": {
        stepKind: "closure",
        c2: "closure",
        c3: "chore",
        edition: "default",
        transitions: { closing: { target: null }, repeat: { target: "closure.chore" } },
      },
    },
  }),
  "prompts/system.md": "You work in small steps.\n",
  "prompts/steps/initial/chore/f_default.md": "Start on issue {uv-issue}: {{task.title}}\n",
  "prompts/steps/continuation/chore/f_default.md": "Go on with issue {uv-issue}.\n",
  "prompts/steps/closure/chore/f_default.md": "Close issue {uv-issue}.\n",
  "prompts/steps/retry/chore/f_failed_git-dirty.md":
    "Commit these:\n{{#each changedFiles}}- {{this}}\n{{/each}}",
};

/** climpt's answers: `status` is each step's progress, the intent says where the flow goes. */
const answer = (action: string) => ({
  structuredOutput: { status: "completed", summary: action, next_action: { action } },
});

let repo: FixtureRepo | undefined;
let climpt: string | undefined;
afterEach(async () => {
  await repo?.cleanup();
  if (climpt) await rm(climpt, { recursive: true, force: true });
});

describe("an agent imported from climpt runs closer's loop (docs/cli.md#import-climpt)", () => {
  it("goes on past a step's completed status, checks the handoff, retries, and completes", async () => {
    climpt = await mkdtemp(join(tmpdir(), "closer-climpt-"));
    for (const [file, text] of Object.entries(CLIMPT_AGENT)) {
      await mkdir(dirname(join(climpt, file)), { recursive: true });
      await writeFile(join(climpt, file), text);
    }
    repo = await makeFixtureRepo({ files: { "README.md": "fixture\n" } });
    await importClimpt({ source: climpt, cwd: repo.dir });
    await repo.commitAll("add the imported agent");
    const agent = await loadAgent("worker", { cwd: repo.dir });
    const backend = makeScriptedBackend([
      answer("next"),
      { ...answer("handoff"), files: { "notes.txt": "done\n" } },
      { ...answer("handoff"), commands: ["git add --all && git commit --quiet -m work"] },
    ]);
    const log = makeEventLog();
    const settings = await resolveRunSettings({
      agent,
      backend,
      cwd: repo.dir,
      task: TASK,
      clock: makeTestClock(),
      onEvent: log.listener,
    });
    const result = await runAgent(settings);
    expect(result.status).toBe("completed");
    expect(backend.calls.map((call) => call.prompt.split("\n")[0])).toEqual([
      `Start on issue : ${TASK.title}`,
      "Go on with issue .",
      "Commit these:",
    ]);
    expect(log.of("completion-signal").map((event) => event.declared)).toEqual([false, true, true]);
  });
});
