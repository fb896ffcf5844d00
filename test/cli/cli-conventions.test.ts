import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeCliRepo } from "./support/cli-repo.js";
import { runCloser } from "./support/closer-process.js";

const VERSION = (
  JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

let repo: FixtureRepo;

beforeAll(async () => {
  repo = await makeCliRepo();
}, 60_000);

afterAll(async () => {
  await repo?.cleanup();
});

const closer = (...args: string[]) => runCloser(args, { cwd: repo.dir });

describe("closer's version and help", () => {
  it.each(["-v", "--version"])("%s prints the version and exits 0", async (flag) => {
    const result = await closer(flag);
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("bare closer prints the help on stdout and exits 0", async () => {
    const result = await closer();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Usage: closer <command> [options]");
    expect(result.stdout).toContain("-v, --version");
  });

  it("groups the commands: start, inspect, scale, author", async () => {
    const { stdout } = await closer("--help");
    const headings = ["Start:", "Inspect:", "Scale:", "Author:"].map((heading) =>
      stdout.indexOf(`\n${heading}\n`),
    );
    expect(headings.every((at) => at > 0)).toBe(true);
    expect([...headings].sort((a, b) => a - b)).toEqual(headings);
    const section = (heading: string) =>
      stdout.slice(stdout.indexOf(`\n${heading}\n`)).split("\n\n")[0];
    expect(section("Start:")).toMatch(/\n {2}init .*\n {2}run /s);
    for (const name of [
      "list",
      "validate",
      "doctor",
      "runs",
      "show",
      "report",
      "replay",
      "worktrees",
    ]) {
      expect(section("Inspect:"), name).toContain(`\n  ${name} `);
    }
    for (const name of ["enqueue", "worker", "queue"]) {
      expect(section("Scale:"), name).toContain(`\n  ${name} `);
    }
    for (const name of ["import", "completion"]) {
      expect(section("Author:"), name).toContain(`\n  ${name} `);
    }
  });
});

describe("unknown options", () => {
  it("reports a typo of run's own option before the missing task, with the suggestion", async () => {
    const result = await closer("run", "good", "--taks", "x");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("closer: unknown option '--taks' (did you mean --task?)");
    expect(result.stderr).toContain("see closer run --help");
    expect(result.stderr).not.toContain("missing task");
    expect(result.stderr).not.toContain("Options:");
    expect(lines.length).toBeLessThanOrEqual(2);
  });

  it("suggests among the agent's own parameter flags too, and names them", async () => {
    const result = await closer("run", "params", "--task", "t", "--flavor", "mint");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--flavor' (did you mean --flavour?)");
    expect(result.stderr).toContain(
      'agent "params" also takes --flavour <string>, --count <number>',
    );
    expect(result.stderr).not.toContain("--max-iterations");
  });

  it("accepts the agent's flags in every spelling", async () => {
    const result = await closer("run", "params", "--flavour=mint", "--count", "-2");
    // Past the option check: the command line lacks only its task.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing task");
  });

  it("reports a typo of run's option even before the agent is named", async () => {
    const result = await closer("run", "--taks", "x");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--taks' (did you mean --task?)");
  });

  it.each([
    {
      args: ["list", "--jsn"],
      line: "unknown option '--jsn' (did you mean --json?)",
      help: "closer list --help",
    },
    {
      args: ["validate", "--jsno"],
      line: "unknown option '--jsno' (did you mean --json?)",
      help: "closer validate --help",
    },
    {
      args: ["doctor", "--quue"],
      line: "unknown option '--quue' (did you mean --queue?)",
      help: "closer doctor --help",
    },
    {
      args: ["worktrees", "prune", "--forse"],
      line: "unknown option '--forse' (did you mean --force?)",
      help: "closer worktrees prune --help",
    },
    { args: ["rnu"], line: "unknown command 'rnu' (did you mean run?)", help: "closer --help" },
  ])("$args: one line with the suggestion, and where the help is", async ({ args, line, help }) => {
    const result = await closer(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`closer: ${line}\n(see ${help})\n`);
  });
});

describe("closer list", () => {
  it("says which agents are valid, and the first problem of one that is not", async () => {
    const registry = join(repo.dir, ".agent", "lazy", "steps_registry.json");
    const saved = await readFile(registry, "utf8");
    const broken = JSON.parse(saved);
    broken.steps["initial.issue"].next = "no.such.step";
    await writeFile(registry, JSON.stringify(broken));
    try {
      const result = await closer("list");
      expect(result.code).toBe(0);
      const line = (name: string) =>
        result.stdout.split("\n").find((each) => each.startsWith(`${name} `)) ?? "";
      expect(line("good")).toMatch(/^good +valid /);
      expect(line("lazy")).toMatch(/^lazy +invalid +\.agent\/lazy\/steps_registry\.json: /);
      expect(line("lazy")).toContain('steps["initial.issue"].next');
      expect(line("lazy")).toContain("(closer validate lazy)");
      expect(result.stdout).toContain("1 invalid agent(s)");

      const json = await closer("list", "--json");
      const agents = JSON.parse(json.stdout) as {
        name: string;
        valid: boolean;
        problem?: { file: string; jsonPath: string };
      }[];
      expect(agents.find((agent) => agent.name === "good")).toMatchObject({ valid: true });
      expect(agents.find((agent) => agent.name === "lazy")).toMatchObject({
        valid: false,
        problem: {
          file: ".agent/lazy/steps_registry.json",
          jsonPath: 'steps["initial.issue"].next',
        },
      });
    } finally {
      await writeFile(registry, saved);
    }
  });
});
