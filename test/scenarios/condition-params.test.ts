import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { makeFixtureRepo, makeScriptedBackend } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_PROJECT,
  makeTaskAgent,
  makeTaskRepo,
  runTask,
  type TaskAgentOptions,
} from "./support/task-agent.js";

/** A custom validator that passes when the file its params name holds the word they name. */
const HOLDS_WORD = [
  'import { existsSync, readFileSync } from "node:fs";',
  'import { join } from "node:path";',
  "export default function validate({ cwd, params }) {",
  "  const file = join(cwd, params.file);",
  '  const text = existsSync(file) ? readFileSync(file, "utf8") : "";',
  "  return { valid: text.includes(params.word), params: { seen: params } };",
  "}",
  "",
].join("\n");

/** The task agent with files of its own in its folder. */
async function makeRepoWithAgentFiles(
  options: TaskAgentOptions,
  agentFiles: Record<string, string>,
) {
  const repo = await makeFixtureRepo({
    files: FIXED_PROJECT,
    agents: [{ ...makeTaskAgent(options), files: agentFiles }],
  });
  return { repo, agent: await loadAgent("tasker", { cwd: repo.dir }) };
}

describe("docs/completion.md#condition-params a completion condition's params reach its validator", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("one validator, two conditions: each runs with its own params, in the command and in a module", async () => {
    const setup = await makeRepoWithAgentFiles(
      {
        patterns: { "note-missing": { description: "a note is missing", params: [] } },
        validators: {
          "note-exists": {
            type: "command",
            command: "cat {{file}}",
            successWhen: "exitCode:0",
            failurePattern: "note-missing",
          },
          "note-says": {
            type: "custom",
            module: "validators/holds-word.mjs",
            failurePattern: "note-missing",
          },
        },
        completionStep: {
          completionConditions: [
            { validator: "git-clean" },
            { validator: "note-exists", params: { file: "notes/first note.md" } },
            { validator: "note-exists", params: { file: "notes/second.md" } },
            { validator: "note-says", params: { file: "notes/second.md", word: "ready" } },
          ],
        },
      },
      { "validators/holds-word.mjs": HOLDS_WORD },
    );
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "notes/first note.md": "one\n" }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { files: { "notes/second.md": "not yet\n" }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { files: { "notes/second.md": "ready\n" }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 3 });
    const failed = log.of("validator-end").filter((event) => !event.valid);
    expect(failed.map((event) => [event.iteration, event.validator])).toEqual([
      [1, "note-exists"],
      [1, "note-says"],
      [2, "note-says"],
    ]);
    // The first note was there: only the condition naming the second one failed.
    expect(failed[0]?.stderr).toContain("notes/second.md");
    expect(failed[0]?.stderr).not.toContain("first note");
    const passed = log.of("validator-end").filter((event) => event.iteration === 3);
    expect(passed.find((event) => event.validator === "note-says")?.params).toEqual({
      seen: { file: "notes/second.md", word: "ready" },
    });
  });

  it("a placeholder the condition's params leave out ends the run as a definition error", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      patterns: { "note-missing": { description: "a note is missing", params: [] } },
      validators: {
        "note-exists": {
          type: "command",
          command: "test -s {{file}}",
          successWhen: "exitCode:0",
          failurePattern: "note-missing",
        },
      },
      completionStep: {
        completionConditions: [{ validator: "note-exists", params: { name: "NOTES.md" } }],
      },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);
    const { result } = await runTask(setup, backend);
    expect(result.status).toBe("error");
    expect(result.reason).toContain(
      "uses {{file}} but its completion condition's params do not give it",
    );
  });
});
