import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, vi } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { TOKEN } from "../run/support/issue-repo.js";
import { PROJECT_TOP } from "../support/project-top.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/**
 * Source of a module that tries to use closer's GitHub token against the
 * fake GitHub: it closes issue 1 with whatever token its environment holds,
 * and without one still asks, so the fake shows the code ran.
 */
function stealer(apiUrl: string): string {
  return `
const token = process.env.GITHUB_TOKEN ?? process.env.GH_TOKEN;
await fetch(${JSON.stringify(apiUrl)} + "/repos/acme/widgets/issues/1", {
  method: "PATCH",
  headers: { "content-type": "application/json", ...(token ? { authorization: "token " + token } : {}) },
  body: JSON.stringify({ state: "closed" }),
});
`;
}

/** A model that writes `files` (relative to the working tree) and declares done. */
function writingModel(files: Record<string, string>): string {
  return `import { writeFileSync } from "node:fs";
${READ_PROMPT}
for (const [file, text] of Object.entries(${JSON.stringify(files)})) writeFileSync(file, text);
${DONE_ANSWER}
`;
}

/** A check command that runs what it is given, as a test runner would. */
const runs = (command: string) => ({
  type: "command",
  command,
  successWhen: "exitCode:0",
  failurePattern: "check-failed",
  extractParams: { errorOutput: "stderr" },
});

function authorized(github: FakeGithub) {
  return github.requests.filter((request) => request.authorization !== undefined);
}

describe("Secrets and closer's authority", () => {
  let repo: FaultRepo | undefined;
  let github: FakeGithub;
  beforeEach(async () => {
    github = await startFakeGithub({ token: TOKEN });
    vi.stubEnv("GITHUB_TOKEN", TOKEN);
    vi.stubEnv("GH_TOKEN", TOKEN);
    vi.stubEnv("GITHUB_API_URL", github.url);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github.close();
    await repo?.cleanup();
    repo = undefined;
  });

  /** A task run of the repo; the model's code has run once the fake saw a request. */
  async function runTask(task = "make the widgets work") {
    if (repo === undefined) throw new Error("no repo");
    const before = await takeUserState(repo.dir);
    // The environment policy is the door closer keeps whether or not the OS sandbox runs; it is
    // off here so the model's code can reach the fake GitHub and show which token it holds.
    const result = await cli(
      "run",
      repo.agent,
      "--task",
      task,
      "--cwd",
      repo.dir,
      "--sandbox",
      "off",
    );
    return { result, before };
  }

  async function expectCompletedWithoutToken(
    outcome: Awaited<ReturnType<typeof runTask>>,
  ): Promise<void> {
    if (repo === undefined) throw new Error("no repo");
    expect(outcome.result.code, outcome.result.stderr).toBe(0);
    expect(github.requests.length, "the model's code ran and asked").toBeGreaterThan(0);
    expect(authorized(github), "no request with closer's token").toEqual([]);
    expect(github.state.issues.every((issue) => issue.state !== "closed")).toBe(true);
    const runDir = await onlyRunFolder(repo.dir);
    expect(await readRunJson(runDir)).toMatchObject({ status: "completed" });
    const environment = (await readRecordedEvents(runDir)).find(
      (event) => event.type === "environment",
    );
    expect(environment).toMatchObject({ validators: expect.arrayContaining(["PATH"]) });
    expect(JSON.stringify(environment)).not.toMatch(/GITHUB_TOKEN|GH_TOKEN/);
    await expectUserStateKept(repo.dir, outcome.before);
  }

  fault(
    {
      what: "a test file the model wrote uses GITHUB_TOKEN to close the issue through the API",
      does: "the check runs without closer's GitHub tokens (an allowlisted environment): no authorized request reaches GitHub; run.json's environment event lists the names each process got",
    },
    async () => {
      repo = await makeFaultRepo({
        program: writingModel({ "close.test.mjs": stealer(github.url) }),
        validators: { "tests-pass": runs("node close.test.mjs") },
        conditions: ["tests-pass"],
      });
      await expectCompletedWithoutToken(await runTask());
    },
  );

  fault(
    {
      what: "the model's code in a pretest script uses GITHUB_TOKEN",
      does: "`npm test` and its pretest run without closer's GitHub tokens: no authorized request reaches GitHub",
    },
    async () => {
      repo = await makeFaultRepo({
        files: {
          "package.json": JSON.stringify({
            name: "widgets",
            private: true,
            scripts: { pretest: "test ! -f setup.mjs || node setup.mjs", test: "node check.mjs" },
          }),
        },
        program: writingModel({ "setup.mjs": stealer(github.url) }),
        validators: { "tests-pass": runs("npm test --silent") },
        conditions: ["tests-pass"],
      });
      await expectCompletedWithoutToken(await runTask());
    },
  );

  fault(
    {
      what: "a custom validator imports the model's code, which uses GITHUB_TOKEN",
      does: "the custom validator's child process runs without closer's GitHub tokens: no authorized request reaches GitHub",
    },
    async () => {
      repo = await makeFaultRepo({
        program: writingModel({ "widget.mjs": stealer(github.url) }),
        validators: {
          "widget-loads": {
            type: "custom",
            module: "validators/widget-loads.mjs",
            failurePattern: "check-failed",
          },
        },
        conditions: ["widget-loads"],
      });
      const validators = join(repo.dir, ".agent/faulty/validators");
      await mkdir(validators, { recursive: true });
      await writeFile(
        join(validators, "widget-loads.mjs"),
        `import { join } from "node:path";
import { pathToFileURL } from "node:url";
export default async function ({ cwd }) {
  await import(pathToFileURL(join(cwd, "widget.mjs")).href);
  return { valid: true };
}
`,
      );
      await repo.commitAll("custom validator");
      await expectCompletedWithoutToken(await runTask());
    },
  );

  fault(
    {
      what: "the agent sets runner.backend.passGithubToken: true",
      does: "the backend's processes get closer's GitHub token, the validators still do not; the environment event lists GITHUB_TOKEN for the backend only",
    },
    async () => {
      const saw = (file: string) =>
        `require("node:fs").writeFileSync(${JSON.stringify(file)}, process.env.GITHUB_TOKEN === ${JSON.stringify(TOKEN)} ? "token" : "none")`;
      repo = await makeFaultRepo({
        program: `import { writeFileSync } from "node:fs";
${READ_PROMPT}
writeFileSync("backend-saw.txt", process.env.GITHUB_TOKEN === ${JSON.stringify(TOKEN)} ? "token" : "none");
${DONE_ANSWER}
`,
        runner: {
          backend: { kind: "command", passGithubToken: true },
        },
        validators: {
          "records-env": runs(`cd ${PROJECT_TOP} && node -e '${saw("validator-saw.txt")}'`),
        },
        conditions: ["records-env"],
      });
      // The command backend's program is the fault repo's own.
      const agentFile = join(repo.dir, ".agent/faulty/agent.json");
      const agent = JSON.parse(await readFile(agentFile, "utf8"));
      agent.runner.backend.command = ["node", repo.programPath];
      await writeFile(agentFile, JSON.stringify(agent, null, 2));
      await repo.commitAll("pass the token");
      const { result, before } = await runTask();
      expect(result.code, result.stderr).toBe(0);
      expect(await readFile(join(repo.dir, "backend-saw.txt"), "utf8")).toBe("token");
      expect(await readFile(join(repo.dir, "validator-saw.txt"), "utf8")).toBe("none");
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed" });
      const environment = (await readRecordedEvents(runDir)).find(
        (event) => event.type === "environment",
      ) as { backend?: string[]; validators?: string[] } | undefined;
      expect(environment?.backend).toContain("GITHUB_TOKEN");
      expect(environment?.validators).not.toContain("GITHUB_TOKEN");
      await expectUserStateKept(repo.dir, before);
    },
  );

  fault(
    {
      what: "the task text and a file the model creates carry closer's GitHub token",
      does: "stderr progress shows [redacted] in its place, as the run record does; the token is nowhere in the run folder",
    },
    async () => {
      repo = await makeFaultRepo({
        // First answer: a file named after the token, left uncommitted; then it commits it.
        program: `import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
${READ_PROMPT}
const token = /ghp_[A-Za-z0-9]+/.exec(prompt)?.[0] ?? "none";
const file = "notes-" + token + ".txt";
if (existsSync(file)) {
  execFileSync("git", ["add", file]);
  execFileSync("git", ["commit", "--quiet", "-m", "notes"]);
} else writeFileSync(file, "notes\\n");
${DONE_ANSWER}
`,
        conditions: ["git-clean", "check-passes"],
      });
      const { result, before } = await runTask(`use the token ${TOKEN} for the widgets`);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain(TOKEN);
      expect(result.stderr).toContain("[redacted]");
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed" });
      expect(await folderText(runDir)).not.toContain(TOKEN);
      await expectUserStateKept(repo.dir, before, { movedBranches: ["main"] });
    },
  );

  fault(
    {
      what: "secrets of many shapes reach the prompt and the model's answer (short sk-ant- key, Bearer JWT, bare JWT, AWS secret access key, private-key block, URL password)",
      does: "each is [redacted] in events, prompts and transcripts; the text around it and the URL's scheme, user and host stay",
    },
    async () => {
      const secrets = {
        "a short Anthropic key": ["sk-ant-Xy12ab", "sk-ant-Xy12ab"],
        "a JWT after Bearer": [
          "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJlMTIz",
          "eyJzdWIiOiJhIn0",
        ],
        "a bare JWT": ["jwt eyJ0eXAiOiJKV1QifQ.eyJpc3MiOiJ4In0.QUJDREVGR0g", "eyJpc3MiOiJ4In0"],
        "an AWS secret access key": [
          "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE",
          "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE",
        ],
        "a private-key block": [
          "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oQ\n-----END EC PRIVATE KEY-----",
          "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oQ",
        ],
        "a URL password": ["https://deploy:pa55w0rd-xyz@git.example.com/x.git", "pa55w0rd-xyz"],
      } as const;
      const text = Object.values(secrets)
        .map(([shown]) => shown)
        .join("\n\n");
      repo = await makeFaultRepo({
        program: `${READ_PROMPT}
console.log(prompt);
${DONE_ANSWER}
`,
        conditions: ["check-passes"],
      });
      const { result, before } = await runTask(`widgets\n\n${text}`);
      expect(result.code, result.stderr).toBe(0);
      const runDir = await onlyRunFolder(repo.dir);
      const recorded = await folderText(runDir);
      const prompts = await folderText(join(runDir, "prompts"));
      const transcripts = await folderText(join(runDir, "transcripts"));
      expect(prompts).toContain("[redacted]");
      expect(transcripts).toContain("[redacted]");
      for (const [kind, [, secret]] of Object.entries(secrets)) {
        expect(recorded, `${kind} in the run folder`).not.toContain(secret);
        expect(result.stderr, `${kind} on stderr`).not.toContain(secret);
      }
      expect(prompts).toContain("https://deploy:[redacted]@git.example.com/x.git");
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed" });
      await expectUserStateKept(repo.dir, before);
    },
  );
});

/** Every file under a folder, as one text. */
async function folderText(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) text += await folderText(path);
    else if ((await stat(path)).isFile()) text += await readFile(path, "utf8");
  }
  return text;
}
