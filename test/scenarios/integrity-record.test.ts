/**
 * The model may edit any file, the agent folder and closer's run record
 * included (docs/integrity.md). These runs play such a model against real
 * git, real processes and the scripted backend, and check that what it edits
 * never turns into a verified completion.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { access, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { readDefinitionFiles } from "../../src/definition/definition-files.js";
import { loadAgent } from "../../src/definition/load-agent.js";
import { isCloserError } from "../../src/errors.js";
import type { Backend } from "../../src/ports/backend.js";
import { runCommand } from "../../src/process/shell-command.js";
import { defaultRunsDir, readRunState } from "../../src/record/run-record.js";
import { exitCodeOfError, resumeRun, runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo, makeScriptedBackend } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_PROJECT,
  makeEventLog,
  makeTaskAgent,
  makeTaskRepo,
  runTask as runBareLoop,
  TASK,
  type TaskAgentOptions,
  WEAKENED_COMMAND,
  WORKING,
} from "./support/task-agent.js";

const PLAY_SCRIPT = fileURLToPath(new URL("./support/integrity-run.ts", import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** A backend the command line can make; the runs here bring their own scripted one. */
const COMMAND_BACKEND = {
  backend: { kind: "command", command: ["node", "-e", "process.exit(3)"] },
};

/** A custom validator that passes once add() adds. */
const ADD_REVIEWED = [
  'import { readFileSync } from "node:fs";',
  'import { join } from "node:path";',
  "export default function validate({ cwd }) {",
  '  const source = readFileSync(join(cwd, "src/add.js"), "utf8");',
  '  return { valid: source.includes("left + right"), params: {} };',
  "}",
  "",
].join("\n");

const ALWAYS_VALID = "export default () => ({ valid: true, params: {} });\n";

async function makeRepo(options: TaskAgentOptions = {}, files: Record<string, string> = {}) {
  const agent = makeTaskAgent({ ...options, runner: { ...COMMAND_BACKEND, ...options.runner } });
  return makeFixtureRepo({ files: BROKEN_PROJECT, agents: [{ ...agent, files }] });
}

/** Plays `play` of support/integrity-run.ts as run `runId` in a process of its own, to its end. */
async function playInChild(repo: FixtureRepo, runId: string, play: "weaken" | "forge") {
  const ended = await runCommand({
    command: ["node", "--import", "tsx", PLAY_SCRIPT, repo.dir, runId, play],
    cwd: PACKAGE_ROOT,
    timeoutMs: 60_000,
  });
  expect(ended.signal ?? String(ended.exitCode), ended.stderr).toMatch(/SIGKILL|137/);
  return join(defaultRunsDir(repo.dir), runId);
}

async function agentOf(repo: FixtureRepo, maxIterations: number) {
  return applyCliOverrides(await loadAgent("tasker", { cwd: repo.dir }), { maxIterations });
}

async function resume(repo: FixtureRepo, runId: string, backend: Backend, maxIterations: number) {
  const log = makeEventLog();
  const outcome = await resumeRun({
    agent: await agentOf(repo, maxIterations),
    cwd: repo.dir,
    backend,
    resume: runId,
    onEvent: log.listener,
  });
  return { outcome, log };
}

describe("docs/integrity.md: what the model edits never becomes a verified completion", () => {
  let repo: FixtureRepo | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.kill("SIGKILL");
    child = undefined;
    await repo?.cleanup();
    repo = undefined;
  });

  it("docs/integrity.md#definition-snapshot (a) a validator the model weakened and committed still checks the resumed run as it was", async () => {
    repo = await makeRepo();
    const runDir = await playInChild(repo, "weakened-run", "weaken");
    const registry = await readFile(join(repo.dir, ".agent/tasker/steps_registry.json"), "utf8");
    expect(registry).toContain(`"command": "${WEAKENED_COMMAND}"`);
    expect(await readRunState(runDir)).toMatchObject({ status: "running", iteration: 1 });

    // The model "finishes" without fixing add(): the tests still fail.
    const { outcome, log } = await resume(
      repo,
      "weakened-run",
      makeScriptedBackend([{ structuredOutput: DONE }]),
      2,
    );

    expect(outcome).toMatchObject({ success: false, status: "max_iterations" });
    const testsRun = log.of("validator-start").filter((event) => event.validator === "tests-pass");
    expect(testsRun.map((event) => event.command)).toEqual(["node --test"]);
    const testsEnd = log.of("validator-end").filter((event) => event.validator === "tests-pass");
    expect(testsEnd.map((event) => event.valid)).toEqual([false]);
    const changed = "changed since the run started; this run keeps the definition it started with";
    expect(log.of("warning").map((event) => event.message)).toEqual(
      expect.arrayContaining([expect.stringContaining(changed)]),
    );
    expect(log.of("definition-snapshot")).toEqual([]);
    const snapshot = await readDefinitionFiles(join(runDir, "definition"));
    expect((await readRunState(runDir)).definition?.hash).toBe(snapshot.hash);
  }, 60_000);

  it("docs/integrity.md#resume (a) only --reload-definition takes the agent folder as it is now, and says so in the record", async () => {
    repo = await makeRepo();
    const runDir = await playInChild(repo, "reloaded-run", "weaken");
    const before = await readRunState(runDir);

    const log = makeEventLog();
    const outcome = await resumeRun({
      agent: await agentOf(repo, 2),
      cwd: repo.dir,
      backend: makeScriptedBackend([{ structuredOutput: DONE }]),
      resume: "reloaded-run",
      reloadDefinition: true,
      onEvent: log.listener,
    });

    expect(outcome).toMatchObject({ success: true, status: "completed" });
    const [reloaded] = log.of("definition-reloaded");
    expect(reloaded?.previousHash).toBe(before.definition?.hash);
    expect(reloaded?.hash).not.toBe(before.definition?.hash);
    expect((await readRunState(runDir)).definition?.hash).toBe(reloaded?.hash);
    expect(await readFile(join(runDir, "definition/steps_registry.json"), "utf8")).toContain(
      `"command": "${WEAKENED_COMMAND}"`,
    );
  }, 60_000);

  it("docs/integrity.md#resume a definition snapshot changed after the run started refuses the resume with exit 2", async () => {
    repo = await makeRepo();
    const runDir = await playInChild(repo, "tampered-run", "weaken");
    const snapshotRegistry = join(runDir, "definition/steps_registry.json");
    const text = await readFile(snapshotRegistry, "utf8");
    await writeFile(snapshotRegistry, text.replace('"node --test"', '"true"'));
    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);

    const refused = await resume(repo, "tampered-run", backend, 3).catch((error: unknown) => error);

    expect(isCloserError(refused) && exitCodeOfError(refused)).toBe(2);
    expect((refused as Error).message).toBe(
      "the definition snapshot of run tampered-run was changed after the run started",
    );
    expect(backend.calls).toEqual([]);
    expect((await readRunState(runDir)).status).toBe("running");
  }, 60_000);

  it("docs/integrity.md#resume a run recorded without a snapshot (run.json format 1) takes one when resumed, with a warning", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      runner: { maxIterations: 1 },
    });
    repo = setup.repo;
    const first = await runBareLoop(setup, makeScriptedBackend([{ structuredOutput: WORKING }]), {
      runId: "old-run",
    });
    expect(first.result.status).toBe("max_iterations");
    const stateFile = join(first.result.runDir, "run.json");
    const { definition: _none, ...old } = await readRunState(first.result.runDir);
    await writeFile(stateFile, JSON.stringify({ ...old, version: 1 }));

    const { outcome, log } = await resume(
      setup.repo,
      "old-run",
      makeScriptedBackend([{ structuredOutput: DONE }]),
      2,
    );

    expect(outcome).toMatchObject({ success: true, status: "completed" });
    expect(log.of("warning").map((event) => event.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("run old-run has no definition snapshot")]),
    );
    const [taken] = log.of("definition-snapshot");
    expect(await readRunState(first.result.runDir)).toMatchObject({
      version: 2,
      definition: { hash: taken?.hash, files: taken?.files },
    });
  }, 60_000);

  it("docs/integrity.md#resume (b) a run.json the model set to completed before closer was killed: --resume exits 2, never success", async () => {
    repo = await makeRepo();
    const runDir = await playInChild(repo, "forged-run", "forge");
    expect((await readRunState(runDir)).status).toBe("completed");
    const eventsBefore = await readFile(join(runDir, "events.jsonl"), "utf8");

    const resumed = await cli(
      "run",
      "tasker",
      "--resume",
      "forged-run",
      "--cwd",
      repo.dir,
      "--json",
    );

    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toContain(
      "run forged-run already ended: completed (verified in iteration 1) — start a new run",
    );
    expect(await readFile(join(runDir, "events.jsonl"), "utf8")).toBe(eventsBefore);
  }, 60_000);

  it("docs/integrity.md#definition-snapshot (c) a custom validator the model rewrote to pass is not the one that checks the run", async () => {
    repo = await makeRepo(
      {
        runner: { maxIterations: 1 },
        patterns: {
          "not-reviewed": {
            description: "add() does not add",
            edition: "failed",
            adaptation: "not-reviewed",
            params: [],
          },
        },
        validators: {
          "add-reviewed": {
            type: "custom",
            module: "validators/add-reviewed.mjs",
            failurePattern: "not-reviewed",
          },
        },
        conditions: ["git-clean", "add-reviewed"],
        prompts: { "steps/retry/task/f_failed_not-reviewed.md": "## add() does not add yet\n" },
      },
      { "validators/add-reviewed.mjs": ADD_REVIEWED },
    );
    const log = makeEventLog();
    const backend = makeScriptedBackend([
      {
        files: { ".agent/tasker/validators/add-reviewed.mjs": ALWAYS_VALID },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      },
    ]);

    const outcome = await runTask({
      agent: await loadAgent("tasker", { cwd: repo.dir }),
      cwd: repo.dir,
      task: TASK,
      worktree: false,
      backend,
      onEvent: log.listener,
    });

    expect(outcome).toMatchObject({ success: false, status: "max_iterations" });
    const reviewed = log.of("validator-end").filter((event) => event.validator === "add-reviewed");
    expect(reviewed.map((event) => event.valid)).toEqual([false]);
    const snapshotModule = join(outcome.runDir, "definition/validators/add-reviewed.mjs");
    expect(await readFile(snapshotModule, "utf8")).toBe(ADD_REVIEWED);
    const treeModule = join(repo.dir, ".agent/tasker/validators/add-reviewed.mjs");
    expect(await readFile(treeModule, "utf8")).toBe(ALWAYS_VALID);
    const [snapshot] = log.of("definition-snapshot");
    expect(snapshot?.hash).toBe((await readRunState(outcome.runDir)).definition?.hash);
  }, 60_000);

  it("docs/integrity.md#run-lock (d) a run whose process is alive refuses a second --resume, and a second run in its working tree", async () => {
    repo = await makeRepo();
    const dir = repo.dir;
    const started = spawn(
      process.execPath,
      ["--import", TSX_LOADER, PLAY_SCRIPT, dir, "held-run", "hold"],
      { cwd: PACKAGE_ROOT, stdio: "ignore" },
    );
    child = started;
    await waitFor(join(dir, ".closer", "holding"));

    const again = await cli("run", "tasker", "--resume", "held-run", "--cwd", dir, "--json");

    expect(again.code, again.stderr).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain(
      `run held-run is running (pid ${started.pid} on host ${os.hostname()}`,
    );
    const second = await cli(
      "run",
      "tasker",
      "--task",
      "another task",
      "--no-worktree",
      "--cwd",
      dir,
    );
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain(`the working tree ${dir} is in use by run held-run`);
    expect((await readRunState(join(defaultRunsDir(dir), "held-run"))).iteration).toBe(0);
  }, 60_000);
});

/** Resolves once `file` exists (the child got as far as the model's first turn). */
async function waitFor(file: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${file} never appeared`);
}
