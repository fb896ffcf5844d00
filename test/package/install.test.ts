import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { type CommandResult, runCommand } from "../../src/process/shell-command.js";
import { brokenReferences, packedFiles } from "./package-references.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What of the checkout the build does not read; package.json's `files` decides what is packed. */
const NOT_COPIED = new Set([".git", "node_modules", "dist", "test", "test-artifacts", "bench"]);
const STEP_MS = 240_000;

let temp: string;
let tarball: string;
let unpacked: string;
let files: string[];
let project: string;
/** Why the installed package cannot be tried here: the npm registry did not answer. */
let unreachable: string | undefined;

/** What `npm run` tells its scripts about the checkout: the scratch project is another one. */
const OUTER_NPM = /^npm_(?:package_|lifecycle_|command$|config_local_prefix$)/i;

/** The environment of npm and the installed closer: the registry as configured, a fresh cache. */
function environment(added: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !OUTER_NPM.test(name)) env[name] = value;
  }
  return {
    ...env,
    npm_config_cache: join(temp, "npm-cache"),
    // `npx closer` runs the installed closer, never a package fetched by that name.
    npm_config_yes: "false",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    NO_COLOR: "1",
    ...added,
  };
}

async function run(
  command: readonly string[],
  cwd: string,
  added: Record<string, string> = {},
): Promise<CommandResult> {
  return runCommand({
    command,
    cwd,
    env: environment(added),
    inheritEnv: false,
    timeoutMs: STEP_MS,
  });
}

const closer = (args: readonly string[], added: Record<string, string> = {}) =>
  run(["npx", "closer", ...args], project, added);

const output = (result: CommandResult) => `${result.stdout}\n${result.stderr}`;

/** Builds and packs a copy of the checkout, so the build never touches the checkout's dist/. */
async function packCheckout(): Promise<string> {
  const source = join(temp, "source");
  await mkdir(source);
  for (const entry of await readdir(ROOT)) {
    if (!NOT_COPIED.has(entry))
      await cp(join(ROOT, entry), join(source, entry), { recursive: true });
  }
  await symlink(join(ROOT, "node_modules"), join(source, "node_modules"), "dir");
  const packed = await run(["npm", "pack", "--json", "--pack-destination", temp], source);
  expect(packed.exitCode, output(packed)).toBe(0);
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [
    { filename: string },
  ];
  return join(temp, filename);
}

/** A new user's project: a fresh git repository with a package.json whose tests pass. */
async function makeProject(): Promise<string> {
  const dir = join(temp, "project");
  await mkdir(join(dir, "test"), { recursive: true });
  const manifest = {
    name: "scratch",
    version: "1.0.0",
    private: true,
    scripts: { test: "node --test" },
  };
  await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(
    join(dir, "test", "one.test.js"),
    'import test from "node:test";\ntest("one", () => {});\n',
  );
  await writeFile(join(dir, ".gitignore"), "node_modules/\n");
  await run(["git", "init", "--quiet", "--initial-branch=main"], dir);
  return dir;
}

/** npm's own words for why the registry did not answer: the reason of its request, else its code. */
function pingError(ping: CommandResult): string {
  const lines = ping.stderr.split("\n").map((line) => line.replace(/^npm error /, "").trim());
  return (
    lines.find((line) => line.includes("reason:")) ??
    lines.find((line) => line.startsWith("code ")) ??
    `npm ping exited ${ping.exitCode}`
  );
}

function skipWhenUnreachable(context: TestContext): void {
  if (unreachable !== undefined) context.skip(unreachable);
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), "closer-package-"));
  await mkdir(join(temp, "tmp"));
  tarball = await packCheckout();
  unpacked = join(temp, "unpacked");
  await mkdir(unpacked);
  await run(["tar", "-xzf", tarball, "-C", unpacked], temp);
  files = packedFiles((await run(["tar", "-tzf", tarball], temp)).stdout);
  const ping = await run(["npm", "ping", "--fetch-retries=0", "--fetch-timeout=30000"], temp);
  if (ping.exitCode !== 0) {
    const registry = (await run(["npm", "config", "get", "registry"], temp)).stdout.trim();
    unreachable = `the npm registry (${registry}) is unreachable, so the packed closer-agent is not installed: ${pingError(ping)}`;
    return;
  }
  project = await makeProject();
  const installed = await run(["npm", "install", tarball], project);
  expect(installed.exitCode, output(installed)).toBe(0);
}, STEP_MS * 2);

afterAll(async () => {
  if (temp !== undefined) await rm(temp, { recursive: true, force: true });
});

describe("docs/cli.md#install the packed closer-agent", () => {
  it("holds the command, the library, the schemas, the example and the docs, and no tests", async () => {
    const manifest = JSON.parse(await readFile(join(unpacked, "package", "package.json"), "utf8"));
    expect(manifest.name).toBe("closer-agent");
    expect(manifest.bin).toEqual({ closer: "dist/bin/closer.js" });
    for (const file of [
      "dist/bin/closer.js",
      "dist/bin/closer-core.cjs",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/testing/index.js",
      "schemas/agent.schema.json",
      "schemas/steps_registry.schema.json",
      "examples/example-repo/.agent/example/agent.json",
      "examples/example-repo/.agent/example/recorded/demo-session.json",
      "examples/example-repo/TASK.md",
      "docs/cli.md",
      "README.md",
    ]) {
      expect(files, file).toContain(file);
    }
    // The example repository's own test is the one the demo's agent makes pass.
    const unwanted = files.filter(
      (file) =>
        !file.startsWith("examples/example-repo/") &&
        /^(?:src|test|bench|scripts|test-artifacts)\/|\.test\.|\/fixtures\/|\/code-cache\//.test(
          file,
        ),
    );
    expect(unwanted).toEqual([]);
  });

  it("has no source map whose sources are missing, and no file naming a path outside it", async () => {
    const root = resolve(unpacked, "package");
    expect(await brokenReferences(root, files)).toEqual([]);
  });

  it("npx closer --help runs the installed closer", async (context) => {
    skipWhenUnreachable(context);
    const help = await closer(["--help"]);
    expect(help.exitCode, output(help)).toBe(0);
    expect(help.stdout).toContain("Usage: closer");
    expect(help.stdout).toMatch(/\bdemo\b/);
    const version = await closer(["--version"]);
    const manifest = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it("npx closer init scaffolds an agent that npx closer validate accepts", async (context) => {
    skipWhenUnreachable(context);
    const init = await closer(["init"]);
    expect(init.exitCode, output(init)).toBe(0);
    const agentDir = join(project, ".agent", "iterator");
    const agent = JSON.parse(await readFile(join(agentDir, "agent.json"), "utf8"));
    expect(agent.$schema).toBe("../../node_modules/closer-agent/schemas/agent.schema.json");
    const schema = JSON.parse(await readFile(resolve(agentDir, agent.$schema), "utf8"));
    expect(schema.properties).toHaveProperty("runner");
    const validate = await closer(["validate"]);
    expect(validate.exitCode, output(validate)).toBe(0);
    expect(validate.stdout).toContain("iterator is valid");
  });

  it("npx closer demo replays the example without credentials and the run reads back", async (context) => {
    skipWhenUnreachable(context);
    const home = join(temp, "home");
    await mkdir(home, { recursive: true });
    const noCredentials = {
      ANTHROPIC_API_KEY: "",
      ANTHROPIC_AUTH_TOKEN: "",
      CLAUDE_CODE_OAUTH_TOKEN: "",
      CLOSER_DEMO_BACKEND: "",
      HOME: home,
      TMPDIR: join(temp, "tmp"),
    };
    const demo = await closer(["demo"], noCredentials);
    expect(demo.exitCode, output(demo)).toBe(0);
    expect(demo.stderr).toContain("no Claude credentials found");
    expect(demo.stderr).toContain("retry with test-failed");
    expect(demo.stderr).toMatch(/completed after 2 iteration/);
    const work = /repository the agent worked on is (\S+) /.exec(demo.stderr)?.[1] ?? "";
    expect(demo.stderr).toContain(`npx closer-agent show last --cwd ${work}`);
    const show = await run(["npx", "closer-agent", "show", "last", "--cwd", work], project);
    expect(show.exitCode, output(show)).toBe(0);
    expect(show.stdout).toContain("completed");
  });

  it("leaves out the packages of the openai-compatible backend and the queue, and says how to add them", async (context) => {
    skipWhenUnreachable(context);
    for (const name of ["ai", "@ai-sdk/openai-compatible", "bullmq"]) {
      const found = await run(["node", "-e", `require.resolve(${JSON.stringify(name)})`], project);
      expect(found.exitCode, `${name} is installed`).not.toBe(0);
    }
    const endpoint = ["--base-url", "http://127.0.0.1:9/v1", "--model", "local"];
    const init = await closer(["init", "local", "--backend", "openai-compatible", ...endpoint]);
    expect(init.exitCode, output(init)).toBe(0);
    const validate = await closer(["validate", "local"]);
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout + validate.stderr).toContain(
      "npm install ai@6 @ai-sdk/openai-compatible@2",
    );
    const enqueue = await closer(["enqueue", "iterator", "--issue", "1"]);
    expect(enqueue.exitCode).toBe(2);
    expect(enqueue.stderr).toContain("fix: npm install bullmq@5");
  });

  it("is imported by name: the library, its test helpers and its schemas", async (context) => {
    skipWhenUnreachable(context);
    const script = [
      'const closer = await import("closer-agent");',
      'const testing = await import("closer-agent/testing");',
      'const schema = import.meta.resolve("closer-agent/schemas/agent.schema.json");',
      "console.log(typeof closer.runTask, typeof closer.loadAgent, typeof testing.makeScriptedBackend, schema);",
    ].join("\n");
    const imported = await run(["node", "--input-type=module", "-e", script], project);
    expect(imported.exitCode, output(imported)).toBe(0);
    expect(imported.stdout).toMatch(/^function function function file:.*agent\.schema\.json$/m);
  });
});
