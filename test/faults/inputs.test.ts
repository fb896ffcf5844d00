import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo } from "./support/fault-repo.js";
import { onlyRunFolder, readRunJson, runFolders } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

type Json = Record<string, unknown>;

/** The object at `path` inside `json`. */
function at(json: Json, ...path: string[]): Json {
  return path.reduce((inner, key) => inner[key] as Json, json);
}

describe("Definitions and input", () => {
  let repo: FaultRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function editJson(file: string, change: (json: Json) => void): Promise<void> {
    const json = JSON.parse(await readFile(join(repo?.dir ?? "", file), "utf8")) as Json;
    change(json);
    await writeFile(join(repo?.dir ?? "", file), JSON.stringify(json, null, 2));
  }

  /** Breaks the definition with `change`, runs, and checks the refusal: exit 2, no run, nothing lost. */
  async function refused(change: () => Promise<void>, args: string[] = ["--task", "Do it"]) {
    repo = await makeFaultRepo();
    await change();
    const before = await takeUserState(repo.dir);
    const result = await cli("run", repo.agent, ...args, "--cwd", repo.dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(await runFolders(repo.dir)).toEqual([]);
    await expectUserStateKept(repo.dir, before);
    return result.stderr;
  }

  fault(
    {
      what: "agent.json holds a misspelt key",
      does: "exit 2 before any query: the file, the key's path and the spelling it meant",
    },
    async () => {
      const stderr = await refused(() =>
        editJson(".agent/faulty/agent.json", (agent) => {
          at(agent, "runner").maxIteration = 3;
        }),
      );
      expect(stderr).toContain('agent.json at runner.maxIteration: unknown key "maxIteration"');
      expect(stderr).toContain('did you mean "maxIterations"?');
    },
  );

  fault(
    {
      what: "a step's prompt template is missing",
      does: "exit 2 before any query: the step, the path looked for, and the file to create",
    },
    async () => {
      const stderr = await refused(() =>
        rm(join(repo?.dir ?? "", ".agent/faulty/prompts/steps/initial/issue/f_default.md")),
      );
      expect(stderr).toContain('no prompt for step "initial.issue"');
      expect(stderr).toContain("fix: create prompts/steps/initial/issue/f_default.md");
    },
  );

  fault(
    {
      what: "an output schema's `$ref`s form a cycle",
      does: "exit 2 before any query: the schema file, the cycle as a path of references, and how to break it",
    },
    async () => {
      const stderr = await refused(async () => {
        await writeFile(
          join(repo?.dir ?? "", ".agent/faulty/schemas/issue.schema.json"),
          JSON.stringify({ step: { $ref: "#/loop" }, loop: { $ref: "#/step" } }),
        );
        await editJson(".agent/faulty/steps_registry.json", (registry) => {
          at(registry, "steps", "initial.issue").outputSchemaRef = {
            file: "issue.schema.json",
            schema: "step",
          };
        });
      });
      expect(stderr).toContain("$ref cycle: issue.schema.json#/step → #/loop → #/step");
      expect(stderr).toContain("break the cycle");
    },
  );

  fault(
    {
      what: "a path in the definition escapes the agent folder (`../../../etc/passwd`)",
      does: "exit 2 before anything is read there: the file, the field, and a path inside the folder to use",
    },
    async () => {
      const stderr = await refused(() =>
        editJson(".agent/faulty/steps_registry.json", (registry) => {
          at(registry, "steps", "initial.issue").outputSchemaRef = {
            file: "../../../etc/passwd",
            schema: "step",
          };
        }),
      );
      expect(stderr).toContain(
        'steps_registry.json at steps["initial.issue"].outputSchemaRef.file: "../../../etc/passwd" leaves the schemas folder',
      );
      expect(stderr).not.toContain("root:");
    },
  );

  fault(
    {
      what: "the agent named does not exist",
      does: "exit 2: the folder looked for, the agents there are, and `closer init` to make one",
    },
    async () => {
      repo = await makeFaultRepo();
      const result = await cli("run", "nobody", "--task", "Do it", "--cwd", repo.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("agents here: faulty");
      expect(result.stderr).toContain("closer init nobody");
    },
  );

  fault(
    {
      what: "a flag has a value of the wrong kind (`--max-iterations many`)",
      does: "exit 2: the flag, what it takes, and an example",
    },
    async () => {
      const stderr = await refused(async () => {}, ["--task", "Do it", "--max-iterations", "many"]);
      expect(stderr).toContain("--max-iterations must be a whole number of at least 1");
      expect(stderr).toContain("fix: pass e.g. --max-iterations 2");
    },
  );

  fault(
    {
      what: "the task file does not exist, or is a folder",
      does: "exit 2: the path and how to give the task",
    },
    async () => {
      repo = await makeFaultRepo();
      const missing = await cli(
        "run",
        repo.agent,
        "--task-file",
        join(repo.dir, "scratch/none.md"),
        "--cwd",
        repo.dir,
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("scratch/none.md: the task file does not exist");
      await mkdir(join(repo.dir, "scratch/task.md"));
      const folder = await cli(
        "run",
        repo.agent,
        "--task-file",
        join(repo.dir, "scratch/task.md"),
        "--cwd",
        repo.dir,
      );
      expect(folder.code).toBe(2);
      expect(await runFolders(repo.dir)).toEqual([]);
      expect(folder.stderr).toContain("scratch/task.md: the task file cannot be read (EISDIR)");
    },
  );

  fault(
    {
      what: "the task file holds bytes that are not UTF-8",
      does: "it is read with replacement characters; the run goes on and its record is valid JSON",
    },
    async () => {
      repo = await makeFaultRepo();
      const file = join(repo.dir, "scratch/task.md");
      await writeFile(file, Buffer.from("# Fix \xff\xfe it\n\nNow.\n", "latin1"));
      const result = await cli(
        "run",
        repo.agent,
        "--task-file",
        file,
        "--cwd",
        repo.dir,
        "--no-worktree",
      );
      expect(result.code).toBe(0);
      const state = await readRunJson(await onlyRunFolder(repo.dir));
      expect(state).toMatchObject({ status: "completed" });
      expect(JSON.stringify(state.task)).toContain("Fix \ufffd\ufffd it");
    },
  );
});
