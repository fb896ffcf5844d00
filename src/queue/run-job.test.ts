import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeIssueAgent } from "../../test/run/support/issue-repo.js";
import { makeSerializer } from "../run/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/index.js";
import { runJob } from "./run-job.js";

/** `npm run lint` failing: npm's banner first, eslint's problem below, npm's trailer after. */
const LINT_PROGRAM = `console.log("");
console.log("> proj@1.0.0 lint");
console.log("> eslint .");
console.log("");
console.log("/repo/src/a.js");
console.log("  3:5  error  'x' is not defined  no-undef");
console.log("");
console.log("✖ 1 problem (1 error, 0 warnings)");
console.error("npm error Lifecycle script \`lint\` failed with error:");
console.error("npm error code 1");
process.exit(1);
`;

/** The model's stand-in: reads the prompt and declares the work done without doing it. */
const MODEL_PROGRAM = `for await (const chunk of process.stdin) void chunk;
console.log(JSON.stringify({
  status: "completed",
  summary: "done",
  next_action: { action: "complete", reason: "done" },
}));
`;

let origin: FixtureRepo | undefined;
let repoDir: string | undefined;
afterEach(async () => {
  await origin?.cleanup();
  if (repoDir !== undefined) await rm(repoDir, { recursive: true, force: true });
  origin = undefined;
  repoDir = undefined;
});

describe("docs/queue.md#worker: a job's result names the failed check by its meaningful lines", () => {
  it("a run out of iterations on an npm-style lint failure: the error, not npm's banner", {
    timeout: 60_000,
  }, async () => {
    origin = await makeFixtureRepo({
      files: { "README.md": "# proj\n", "lint.mjs": LINT_PROGRAM, "model.mjs": MODEL_PROGRAM },
      agents: [
        makeIssueAgent({
          runner: {
            backend: { kind: "command", command: ["node", "model.mjs"] },
            maxIterations: 1,
            sandbox: { mode: "off" },
          },
          parameters: {},
          initialPrompt: "# {{task.title}}\n",
          textOnly: true,
          patterns: { "lint-error": { description: "lint fails", params: ["errorOutput"] } },
          validators: {
            lint: {
              type: "command",
              command: "node lint.mjs",
              successWhen: "exitCode:0",
              failurePattern: "lint-error",
              extractParams: { errorOutput: "stdout" },
            },
          },
          conditions: ["lint"],
        }),
      ],
    });
    repoDir = await mkdtemp(join(tmpdir(), "closer-job-"));
    const result = await runJob(
      {
        version: 1,
        repository: { cloneUrl: origin.dir, owner: "acme", name: "proj" },
        agent: "fixer",
        work: { kind: "task", task: { kind: "text", title: "fix the lint", body: "" } },
        flags: {},
        runId: "20300101-000000-jobqte",
      },
      {
        repoDir,
        env: { ...process.env },
        signal: new AbortController().signal,
        serialize: makeSerializer(),
        onEvent: () => {},
        log: () => {},
      },
    );
    expect(result).toMatchObject({ success: false, status: "max_iterations" });
    expect(result.failedCheck).toMatch(/^lint failed \(lint-error\): /);
    expect(result.failedCheck).toContain("'x' is not defined");
    expect(result.failedCheck).not.toContain("proj@1.0.0");
    expect(result.failedCheck).not.toContain("npm error");
  });
});
