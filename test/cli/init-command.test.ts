import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { cli } from "./support/cli-repo.js";
import { INIT_PROJECTS } from "./support/init-projects.js";

const SCHEMAS = fileURLToPath(new URL("../../schemas/", import.meta.url));

let repo: FixtureRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function readJson(path: string) {
  return JSON.parse(await readFile(path, "utf8"));
}

/** The completion conditions of the scaffolded agent, each with its command. */
async function conditions(dir: string): Promise<Record<string, string>> {
  const registry = await readJson(join(dir, ".agent/demo/steps_registry.json"));
  const names: { validator: string }[] =
    registry.completionSteps["complete.issue"].completionConditions;
  return Object.fromEntries(
    names.map(({ validator }) => [validator, registry.validators[validator].command]),
  );
}

describe("closer init on fixture projects of each kind", () => {
  it.each(INIT_PROJECTS)(
    "$kind: scaffolds an agent that validates and checks what the project has",
    async (project) => {
      repo = await makeFixtureRepo({ files: project.files });
      const init = await cli("init", "demo", "--cwd", repo.dir);
      expect(init.stderr).toBe("");
      expect(init.code).toBe(0);
      expect(await conditions(repo.dir)).toEqual({
        "git-clean": "git status --porcelain",
        ...project.checks,
      });
      for (const [validator, command] of Object.entries(project.checks)) {
        expect(init.stdout).toMatch(
          new RegExp(
            `^chose   ${validator}: ${command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(`,
            "m",
          ),
        );
      }
      const validate = await cli("validate", "demo", "--cwd", repo.dir);
      expect(validate.stdout).toContain("✓ demo is valid");
      expect(validate.stdout).not.toContain("warning:");
      expect(validate.code).toBe(0);
    },
  );

  it("names the checks in the prompts, and writes a retry prompt for each check only", async () => {
    const go = INIT_PROJECTS.find((project) => project.kind === "go");
    repo = await makeFixtureRepo({ files: go?.files ?? {} });
    await cli("init", "demo", "--cwd", repo.dir);
    const agentDir = join(repo.dir, ".agent/demo");
    const system = await readFile(join(agentDir, "prompts/system.md"), "utf8");
    expect(system).toContain("`go test -v ./...` and `go vet ./...`");
    expect(system).not.toContain("npm");
    const retry = join(agentDir, "prompts/steps/retry/issue");
    expect(await readFile(join(retry, "f_failed_test-failed.md"), "utf8")).toContain(
      "`go test -v ./...` fails",
    );
    // go vet's output has no parser in closer: its retry prompt shows the output alone.
    const vet = await readFile(join(retry, "f_failed_lint-error.md"), "utf8");
    expect(vet).toContain("`go vet ./...` fails");
    expect(vet).not.toContain("lintErrors");
    await expect(readFile(join(retry, "f_failed_type-error.md"), "utf8")).rejects.toThrow();
  });

  it("--help prints its examples as written, a continued line included", async () => {
    const help = await cli("init", "--help");
    expect(help.stdout).toContain(
      "--base-url http://localhost:11434/v1 \\\n      --model qwen2.5-coder",
    );
  });

  it("named nothing, makes the agent iterator, and its next steps name it", async () => {
    repo = await makeFixtureRepo({ files: { "README.md": "notes\n" } });
    const init = await cli("init", "--cwd", repo.dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("created .agent/iterator/agent.json");
    expect(init.stdout).toContain('closer run iterator --task "…"');
    expect((await cli("validate", "iterator", "--cwd", repo.dir)).code).toBe(0);
  });

  it("scaffolds git-clean alone in a project it cannot read, and says how to give a test command", async () => {
    repo = await makeFixtureRepo({ files: { "README.md": "notes\n" } });
    const init = await cli("init", "demo", "--cwd", repo.dir);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("found   nothing closer knows how to check");
    expect(init.stdout).toContain(
      'closer init demo --force --test-command "<command that runs the tests>"',
    );
    expect(await conditions(repo.dir)).toEqual({ "git-clean": "git status --porcelain" });
    const prompt = await readFile(
      join(repo.dir, ".agent/demo/prompts/steps/initial/issue/f_default.md"),
      "utf8",
    );
    expect(prompt).not.toContain("npm test");

    const forced = await cli(
      "init",
      "demo",
      "--cwd",
      repo.dir,
      "--force",
      "--test-command",
      "./check {{all}}",
    );
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("chose   tests-pass: ./check {{all}} (--test-command)");
    expect(await conditions(repo.dir)).toEqual({
      "git-clean": "git status --porcelain",
      "tests-pass": "./check {{all}}",
    });
    // The command is text of the prompts, not a template expression.
    expect((await cli("validate", "demo", "--cwd", repo.dir)).code).toBe(0);
  });

  it("--test-command wins over the project's test script, which is reported as skipped", async () => {
    repo = await makeFixtureRepo({ files: { "package.json": '{"scripts":{"test":"jest"}}' } });
    const init = await cli("init", "demo", "--cwd", repo.dir, "--test-command", "npm run test:ci");
    expect(init.code).toBe(0);
    expect((await conditions(repo.dir))["tests-pass"]).toBe("npm run test:ci");
    expect(init.stdout).toContain(
      "skipped npm test (package.json scripts.test): the test check is already npm run test:ci (--test-command)",
    );
  });

  it("--backend writes the kind, and refuses one it cannot write or does not know", async () => {
    repo = await makeFixtureRepo({});
    expect((await cli("init", "demo", "--cwd", repo.dir, "--backend", "codex")).code).toBe(0);
    const agent = await readJson(join(repo.dir, ".agent/demo/agent.json"));
    expect(agent.runner.backend).toEqual({ kind: "codex", session: "continue" });
    expect((await cli("validate", "demo", "--cwd", repo.dir)).code).toBe(0);

    const command = await cli("init", "other", "--cwd", repo.dir, "--backend", "command");
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('the command backend needs "command"');
    const unknown = await cli("init", "other", "--cwd", repo.dir, "--backend", "gpt");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--backend "gpt" is not a backend');
    await expect(readFile(join(repo.dir, ".agent/other/agent.json"), "utf8")).rejects.toThrow();
  });

  it("--backend openai-compatible asks for its endpoint and model, and writes them with --base-url and --model", async () => {
    repo = await makeFixtureRepo({});
    const bare = await cli("init", "local", "--cwd", repo.dir, "--backend", "openai-compatible");
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('needs "baseURL"');
    expect(bare.stderr).toContain("pass --base-url and --model");
    await expect(readFile(join(repo.dir, ".agent/local/agent.json"), "utf8")).rejects.toThrow();

    const given = await cli(
      ...["init", "local", "--cwd", repo.dir, "--backend", "openai-compatible"],
      ...["--base-url", "http://127.0.0.1:11434/v1", "--model", "qwen2.5-coder"],
      ...["--api-key-env", "LOCAL_MODEL_KEY"],
    );
    expect(given.code, given.stderr).toBe(0);
    const agent = await readJson(join(repo.dir, ".agent/local/agent.json"));
    expect(agent.runner.backend).toEqual({
      kind: "openai-compatible",
      baseURL: "http://127.0.0.1:11434/v1",
      model: "qwen2.5-coder",
      apiKeyEnv: "LOCAL_MODEL_KEY",
      session: "continue",
    });
    expect((await cli("validate", "local", "--cwd", repo.dir)).code).toBe(0);
  });
});

describe("the $schema closer init writes", () => {
  it("points into the project's node_modules/closer-agent when closer is a dependency", async () => {
    repo = await makeFixtureRepo({});
    const installed = join(repo.dir, "node_modules", "closer-agent");
    await mkdir(installed, { recursive: true });
    await writeFile(join(installed, "package.json"), '{"name":"closer-agent"}');
    await cp(SCHEMAS, join(installed, "schemas"), { recursive: true });
    await cli("init", "demo", "--cwd", repo.dir);
    const agentDir = join(repo.dir, ".agent/demo");
    const agent = await readJson(join(agentDir, "agent.json"));
    const registry = await readJson(join(agentDir, "steps_registry.json"));
    expect(agent.$schema).toBe("../../node_modules/closer-agent/schemas/agent.schema.json");
    expect(registry.$schema).toBe(
      "../../node_modules/closer-agent/schemas/steps_registry.schema.json",
    );
    expect((await readJson(resolve(agentDir, agent.$schema))).properties).toHaveProperty("runner");
  });

  it("is the file URL of the running closer's schema when the project has no closer (global, npx)", async () => {
    repo = await makeFixtureRepo({});
    await cli("init", "demo", "--cwd", repo.dir);
    const agent = await readJson(join(repo.dir, ".agent/demo/agent.json"));
    expect(agent.$schema).toMatch(/^file:\/\//);
    const schema = await readJson(fileURLToPath(agent.$schema));
    expect(schema).toEqual(await readJson(join(SCHEMAS, "agent.schema.json")));
  });
});

describe("closer init warns, one line each, about what a run would find only later", () => {
  it("names a chosen program that is not on PATH, with the checks it would fail", async () => {
    repo = await makeFixtureRepo({ files: { "go.mod": "module example.com/calc\n\ngo 1.21\n" } });
    const emptyPath = await mkdtemp(join(tmpdir(), "closer-no-tools-"));
    const path = process.env.PATH;
    process.env.PATH = emptyPath;
    try {
      const init = await cli("init", "demo", "--cwd", repo.dir);
      expect(init.code).toBe(0);
      expect(init.stdout).toContain(
        "warning go is not on PATH: the tests-pass and lint checks will fail until it is installed\n",
      );
      expect(init.stdout).not.toContain("not a git repository");
    } finally {
      process.env.PATH = path;
      await rm(emptyPath, { recursive: true, force: true });
    }
    const own = await cli(
      "init",
      "other",
      "--cwd",
      repo.dir,
      "--test-command",
      "closer-no-such-runner --all",
    );
    expect(own.stdout).toContain(
      "warning closer-no-such-runner is not on PATH: the tests-pass check will fail until it is installed\n",
    );
  });

  it("says that a folder outside any git repository needs git init", async () => {
    const dir = await mkdtemp(join(tmpdir(), "closer-no-git-"));
    try {
      const init = await cli("init", "demo", "--cwd", dir);
      expect(init.code).toBe(0);
      expect(init.stdout).toContain(
        "warning not a git repository: closer runs need git; run `git init` first\n",
      );
      expect(await readJson(join(dir, ".agent/demo/agent.json"))).toMatchObject({ name: "demo" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
