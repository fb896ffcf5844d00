import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeIssueAgent } from "../../test/run/support/issue-repo.js";
import { makeSerializer } from "../run/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/index.js";
import { runJob } from "./run-job.js";

/** The model's stand-in: notes its query beside the clones, and declares done without the work. */
const modelProgram = (queries: string) => `import { appendFileSync } from "node:fs";
for await (const chunk of process.stdin) void chunk;
appendFileSync(${JSON.stringify(queries)}, "query\\n");
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

describe("docs/queue.md#exactly-once: a later attempt of a job whose run ended takes the recorded end", () => {
  it("the run ended max_iterations: the next attempt returns that end, resumes nothing and sends no query", {
    timeout: 60_000,
  }, async () => {
    repoDir = await mkdtemp(join(tmpdir(), "closer-job-"));
    const queries = join(repoDir, "queries");
    origin = await makeFixtureRepo({
      files: {
        "README.md": "# proj\n",
        "check.mjs": "process.exit(1);\n",
        "model.mjs": modelProgram(queries),
      },
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
        }),
      ],
    });
    const data = {
      version: 1 as const,
      repository: { cloneUrl: origin.dir, owner: "acme", name: "proj" },
      agent: "fixer",
      work: { kind: "task" as const, task: { kind: "text" as const, title: "fix it", body: "" } },
      flags: {},
      runId: "20300101-000000-jobend",
    };
    const context = {
      repoDir,
      env: { ...process.env },
      signal: new AbortController().signal,
      serialize: makeSerializer(),
      onEvent: () => {},
      log: () => {},
    };
    const first = await runJob(data, context);
    expect(first).toMatchObject({ success: false, status: "max_iterations", resumed: false });
    const runJson = join(String(first.runDir), "run.json");
    const recorded = await readFile(runJson, "utf8");

    const again = await runJob(data, context);
    expect(again).toMatchObject({
      success: false,
      status: "max_iterations",
      iterations: 1,
      runId: data.runId,
      runDir: first.runDir,
      resumed: true,
    });
    expect(String(again.reason)).toContain("an earlier attempt of this job ended the run");
    expect(again.failedCheck).toMatch(/^check-passes failed \(check-failed\)/);
    expect(await readFile(queries, "utf8")).toBe("query\n");
    expect(await readFile(runJson, "utf8")).toBe(recorded);
  });
});
