import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeCommandBackend } from "../../src/backends/agent-cli/command.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { DONE, FIXED_PROJECT, makeTaskRepo, runTask } from "./support/task-agent.js";

/**
 * A model that answers in prose. Asked for the answer format, it ends its
 * answer with the JSON object in a fenced block; otherwise it only talks.
 */
const PROSE_MODEL = `
const prompt = require("node:fs").readFileSync(0, "utf8");
const asked = prompt.includes("End your answer with one JSON object");
const done = ${JSON.stringify(DONE)};
process.stdout.write(
  asked
    ? "I fixed add() and the tests pass.\\n\\n\`\`\`json\\n" + JSON.stringify(done, null, 2) + "\\n\`\`\`\\n\\nThat is all.\\n"
    : "I fixed add() and the tests pass. Everything is done.\\n",
);
`;

const JSON_FORMAT = { responseFormat: { type: "json", requiredFields: ["status"] } };

describe("scenarios: a backend that does not enforce the output schema", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("gets the answer format in its prompt, answers in prose with a fenced JSON block, and completes", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: JSON_FORMAT,
    });
    cleanup = setup.repo.cleanup;
    const backend = makeCommandBackend({ command: ["node", "-e", PROSE_MODEL] });
    const { result, log } = await runTask(setup, backend);

    expect(log.of("decision")[0]).toMatchObject({
      source: "structured-from-text",
      decision: "complete",
    });
    expect(log.of("format-check").map((event) => event.valid)).toEqual([true]);
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
    const recorded = await readFile(join(result.runDir, "prompts", "iteration-001.md"), "utf8");
    expect(recorded).toContain("# Task: make add() add");
    expect(recorded).toContain("## Answer format");
    expect(recorded).toContain('- `status` (required): string, one of "in_progress", "completed"');
  });

  it("without the answer format the same model never declares, and the run does not complete", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: JSON_FORMAT,
    });
    cleanup = setup.repo.cleanup;
    // A program said to read CLOSER_OUTPUT_SCHEMA gets no appended section.
    const backend = makeCommandBackend({
      command: ["node", "-e", PROSE_MODEL],
      readsOutputSchema: true,
    });
    const { result, log } = await runTask(setup, backend, { maxIterations: 2 });

    expect(log.of("decision").map((event) => event.source)).toEqual(["none", "none"]);
    expect(result.status).not.toBe("completed");
    const recorded = await readFile(join(result.runDir, "prompts", "iteration-001.md"), "utf8");
    expect(recorded).not.toContain("## Answer format");
  });

  it("an answer that still does not fit the schema is a format-error retry naming what is wrong", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: JSON_FORMAT,
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      [
        {
          text: `Done.\n\n\`\`\`json\n${JSON.stringify({ ...DONE, status: "finished", next_action: { action: "complete" } })}\n\`\`\`\n`,
        },
        { text: `Fixed the format:\n\`\`\`json\n${JSON.stringify(DONE)}\n\`\`\`` },
      ],
      { enforcesSchema: false },
    );
    const { result, log } = await runTask(setup, backend);

    expect(backend.calls[0]?.prompt).toContain("## Answer format");
    expect(log.of("format-check").map((event) => event.valid)).toEqual([false, true]);
    expect(log.of("prompt")[1]).toMatchObject({ kind: "format-retry" });
    const retry = backend.calls[1]?.prompt ?? "";
    expect(retry).toContain("format-error");
    expect(retry).toContain("/status");
    expect(retry).toContain("## Answer format");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("a backend that enforces the schema gets the prompt as rendered", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);
    const { result } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    expect(backend.calls[0]?.prompt).not.toContain("## Answer format");
  });
});
