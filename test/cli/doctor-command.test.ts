import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "../../src/sandbox/sandbox-runtime.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeCliRepo } from "./support/cli-repo.js";
import { runCloser } from "./support/closer-process.js";

const support = await sandboxSupport();
/** Whether the OS sandbox runs here, and whether processes join held sandboxes. */
const sandboxWorks = support.works;
const heldJoins = support.works && support.held.joins;

/** closer needs Node 22.12 (package.json engines): on an older Node, doctor rightly says so. */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const NODE_IS_NEW_ENOUGH = major > 22 || (major === 22 && minor >= 12);

let repo: FixtureRepo;
let scratch: string;

/** A folder holding only `programs` (links to the real ones), to be the whole PATH. */
async function binWith(name: string, programs: Record<string, string>): Promise<string> {
  const bin = join(scratch, name);
  await mkdir(bin, { recursive: true });
  for (const [program, target] of Object.entries(programs))
    await symlink(target, join(bin, program));
  return bin;
}

/** A PATH of one folder holding every program of this one but `left`. */
async function pathWithout(left: readonly string[]): Promise<string> {
  const bin = join(scratch, `without-${left.join("-")}`);
  await mkdir(bin, { recursive: true });
  const seen = new Set(left);
  for (const folder of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    for (const program of await readdir(folder).catch(() => [])) {
      if (seen.has(program)) continue;
      seen.add(program);
      await symlink(join(folder, program), join(bin, program));
    }
  }
  return bin;
}

function which(program: string): string {
  return spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).stdout.trim();
}

async function setRunner(agent: string, runner: Record<string, unknown>): Promise<void> {
  const file = join(repo.dir, ".agent", agent, "agent.json");
  const json = JSON.parse(await readFile(file, "utf8"));
  json.runner = { ...json.runner, ...runner };
  await writeFile(file, JSON.stringify(json, null, 2));
}

const doctor = (args: string[], env: Record<string, string>) =>
  runCloser(["doctor", ...args, "--cwd", repo.dir], {
    cwd: scratch,
    env: { HOME: join(scratch, "home"), ...env },
  });

interface Check {
  readonly name: string;
  readonly status: string;
  readonly detail: string;
  readonly fix?: string;
}

const line = (stdout: string, name: string) =>
  stdout.split("\n").find((each) => each.slice(9).startsWith(`${name}: `)) ?? "";

beforeAll(async () => {
  repo = await makeCliRepo();
  scratch = await mkdtemp(join(tmpdir(), "closer-doctor-"));
  await mkdir(join(scratch, "home"));
  await setRunner("good", { sandbox: { mode: "off" } });
  await setRunner("lazy", { sandbox: { mode: "on" } });
  await setRunner("picky", { sandbox: { mode: "off" }, backend: { kind: "codex" } });
}, 60_000);

afterAll(async () => {
  await repo?.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

describe("closer doctor", () => {
  it("checks Node against package.json's engines", async () => {
    const bin = await binWith("node-git", { node: process.execPath, git: which("git") });
    const result = await doctor(["good"], { PATH: bin });
    expect(line(result.stdout, "node")).toMatch(
      NODE_IS_NEW_ENOUGH ? /^ok +node: v[\d.]+ \(closer needs >=22\.12\)$/ : /^missing +node: /,
    );
  });

  it.skipIf(!NODE_IS_NEW_ENOUGH)("exits 0 when everything an agent needs is there", async () => {
    const bin = await binWith("all", { node: process.execPath, git: which("git") });
    const result = await doctor(["good"], { PATH: bin });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(line(result.stdout, "git")).toMatch(/^ok +git: /);
    expect(line(result.stdout, "git identity")).toMatch(/^ok /);
    expect(line(result.stdout, "OS sandbox")).toMatch(/^ok +OS sandbox: not used/);
    expect(line(result.stdout, "command: node")).toMatch(
      /^ok +command: node: node is on PATH \[good\]$/,
    );
    // Only a warning: a task run needs no token.
    expect(line(result.stdout, "GITHUB_TOKEN")).toMatch(/^warning +GITHUB_TOKEN: not set/);
    expect(result.stdout).toContain("nothing missing");
  });

  it.skipIf(process.platform !== "linux")(
    "says which of the OS sandbox's programs are missing and how to install them",
    async () => {
      const bin = await binWith("no-sandbox", { node: process.execPath, git: which("git") });
      const result = await doctor(["lazy"], { PATH: bin });
      expect(result.code).toBe(1);
      for (const [pkg, program] of [
        ["bubblewrap", "bwrap"],
        ["socat", "socat"],
        ["ripgrep", "rg"],
      ]) {
        expect(line(result.stdout, pkg ?? "")).toMatch(
          new RegExp(`^missing +${pkg}: ${program} is not on PATH`),
        );
      }
      expect(result.stdout).toContain("fix: sudo apt-get install bubblewrap socat ripgrep");
    },
  );

  it.skipIf(!sandboxWorks)(
    "says whether processes join a held sandbox, and which programs they lack when they cannot",
    async () => {
      const lacking = await doctor(["lazy"], {
        PATH: await pathWithout(["nsenter", "unshare", "setpriv"]),
      });
      expect(line(lacking.stdout, "OS sandbox"), lacking.stdout).toMatch(/^ok +OS sandbox: /);
      expect(line(lacking.stdout, "held sandbox")).toMatch(
        /^warning +held sandbox: each query and check builds a sandbox of its own .*nsenter, unshare, setpriv not found on PATH/,
      );
      const whole = await doctor(["lazy"], { PATH: process.env.PATH ?? "" });
      expect(line(whole.stdout, "held sandbox")).toMatch(
        heldJoins ? /^ok +held sandbox: processes join/ : /^warning +held sandbox: /,
      );
    },
    60_000,
  );

  it("finds a backend's CLI and credential missing, then present", async () => {
    const bare = await binWith("no-codex", { node: process.execPath, git: which("git") });
    const missing = await doctor(["picky", "--json"], { PATH: bare });
    expect(missing.code).toBe(1);
    const checks = (JSON.parse(missing.stdout) as { ok: boolean; checks: Check[] }).checks;
    expect(checks.find((check) => check.name === "codex: codex")).toMatchObject({
      status: "missing",
      detail: "codex is not on PATH",
      fix: "npm install -g @openai/codex",
      agents: ["picky"],
    });
    expect(checks.find((check) => check.name === "codex: credential")).toMatchObject({
      status: "missing",
    });

    const bin = await binWith("codex", { node: process.execPath, git: which("git") });
    await writeFile(join(bin, "codex"), "#!/bin/sh\nexit 0\n");
    await chmod(join(bin, "codex"), 0o755);
    const found = await doctor(["picky", "--json"], { PATH: bin, OPENAI_API_KEY: "sk-test" });
    const after = (JSON.parse(found.stdout) as { checks: Check[] }).checks;
    expect(after.find((check) => check.name === "codex: codex")?.status).toBe("ok");
    expect(after.find((check) => check.name === "codex: credential")?.status).toBe("ok");
    expect(found.stdout).not.toContain("sk-test");
  });

  it("checks the queue's Redis only when asked", async () => {
    const bin = await binWith("redis", { node: process.execPath, git: which("git") });
    const without = await doctor(["good"], { PATH: bin });
    expect(line(without.stdout, "redis")).toBe("");
    const asked = await doctor(["good", "--queue", "--redis", "redis://127.0.0.1:9"], {
      PATH: bin,
    });
    expect(asked.code).toBe(1);
    expect(line(asked.stdout, "redis")).toMatch(
      /^missing +redis: cannot reach Redis at 127\.0\.0\.1:9/,
    );
  });

  it("refuses an agent that does not exist", async () => {
    const result = await doctor(["nobody"], { PATH: process.env.PATH ?? "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nobody");
  });
});
