import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ImportReport, MappingEntry } from "../../src/import/climpt/mapping-report.js";
import { isPlainObject } from "../../src/plain-object.js";
import { cli } from "./support/cli-repo.js";

const CLIMPT = fileURLToPath(new URL("../fixtures/climpt/", import.meta.url));
const AGENTS = ["iterator", "reviewer", "triager", "merger"] as const;

let project: string;
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "closer-import-climpt-"));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

interface JsonReport extends ImportReport {
  readonly validation: { readonly valid: boolean; readonly problems: readonly unknown[] };
}

async function importJson(source: string, ...more: string[]) {
  const result = await cli("import", "climpt", source, "--cwd", project, "--json", ...more);
  return { ...result, report: JSON.parse(result.stdout || "null") as JsonReport };
}

/** Every path to a value that is not an object, e.g. ["runner", "flow", "systemPromptPath"]. */
function leafPaths(value: unknown, path: string[] = []): string[][] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return [path];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...path, key]));
}

/** The report's entries of one file, by the JSON path they name. */
function entriesOf(report: ImportReport, file: string): Map<string, MappingEntry> {
  const all = [...report.mapped, ...report.unmapped].filter((entry) => entry.file === file);
  return new Map(all.map((entry) => [entry.from, entry]));
}

/** A path as the report writes it: `steps["initial.issue"].next`. */
function jsonPath(path: readonly string[]): string {
  return path
    .map((key, index) =>
      /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
        ? `${index === 0 ? "" : "."}${key}`
        : `[${JSON.stringify(key)}]`,
    )
    .join("");
}

describe("closer import climpt (docs/cli.md#import-climpt)", () => {
  it.each(AGENTS)("imports climpt's %s into an agent closer validate accepts", async (name) => {
    const { code, report, stderr } = await importJson(join(CLIMPT, name));
    expect(stderr).toBe("");
    expect(report.validation.problems.filter((p) => JSON.stringify(p).includes('"error"'))).toEqual(
      [],
    );
    expect(report.validation.valid).toBe(true);
    expect(code).toBe(0);
    const validate = await cli("validate", name, "--cwd", project);
    expect(validate.stdout).toContain(`✓ ${name} is valid`);
    expect(validate.code).toBe(0);
  });

  it.each(AGENTS)(
    "names every key of %s's agent.json and steps_registry.json in its report",
    async (name) => {
      const { report } = await importJson(join(CLIMPT, name));
      for (const file of ["agent.json", "steps_registry.json"]) {
        const source = JSON.parse(await readFile(join(CLIMPT, name, file), "utf8"));
        const named = [...entriesOf(report, file).keys()];
        const unnamed = leafPaths(source)
          .map(jsonPath)
          .filter(
            (path) =>
              !named.some(
                (from) =>
                  path === from ||
                  path.startsWith(`${from}.`) ||
                  path.startsWith(`${from}[`) ||
                  // an array: each of its elements is named
                  from.startsWith(`${path}[`),
              ),
          );
        expect(unnamed, `${name}/${file}`).toEqual([]);
      }
    },
  );

  it("reports what iterator's keys became and which have no equivalent", async () => {
    const { report } = await importJson(join(CLIMPT, "iterator"));
    const agent = entriesOf(report, "agent.json");
    expect(agent.get("runner.boundaries.allowedTools")?.to).toBe(
      "agent.json runner.backend.allowedTools",
    );
    expect(agent.get("parameters.iterateMax.cli")?.to).toBe(
      "agent.json parameters.iterateMax.flag",
    );
    expect(agent.get("runner.integrations.github.defaultClosureAction")?.to).toBe(
      "agent.json runner.github.closeAction",
    );
    // climpt's --branch is closer's own option: closer run --branch sets the worktree's branch.
    expect(agent.get("parameters.branch")?.to).toBe("closer run --branch");
    const unmapped = report.unmapped.map((entry) => `${entry.file} ${entry.from}`);
    expect(unmapped).toEqual(
      expect.arrayContaining([
        "agent.json runner.logging",
        "agent.json runner.actions",
        "agent.json displayName",
        "agent.json runner.execution.worktree.root",
        "agent.json runner.integrations.github.labels.inProgress",
        'steps_registry.json steps["initial.issue"].structuredGate',
        'steps_registry.json steps["section.projectcontext"]',
      ]),
    );
    const filesNotRead = report.unmapped.filter((entry) => entry.from === "").map((e) => e.file);
    expect(filesNotRead).toEqual([
      "README.md",
      "config.json",
      "frontmatter-to-schema",
      "registry.json",
    ]);
    const written = JSON.parse(await readFile(join(project, ".agent/iterator/agent.json"), "utf8"));
    expect(Object.keys(written.parameters)).toEqual(
      expect.arrayContaining(["issue", "iterateMax", "project_title"]),
    );
    expect(written.parameters).not.toHaveProperty("branch");
    expect(written.parameters.project_title).toEqual(
      expect.objectContaining({ type: "string", default: "", flag: "--project-title" }),
    );
    expect(written.runner).toMatchObject({
      backend: { kind: "claude-sdk", permissionMode: "acceptEdits" },
      maxIterations: 500,
      github: { labels: { add: ["done"], remove: ["in-progress"] }, closeAction: "label-only" },
      worktree: { enabled: true },
    });
  });

  it("links climpt's flow into closer's: entry step, next, and the closure step's checks", async () => {
    await importJson(join(CLIMPT, "iterator"));
    const registry = JSON.parse(
      await readFile(join(project, ".agent/iterator/steps_registry.json"), "utf8"),
    );
    expect(registry.entryStep).toBe("initial.polling");
    // climpt's status is every step's progress; its flow ends on these intents.
    expect(registry.completionSignal).toEqual({ status: [], action: ["closing", "handoff"] });
    expect(registry.steps["initial.issue"]).toMatchObject({ next: "continuation.issue" });
    expect(registry.steps["continuation.issue"]).toMatchObject({ completionStep: "closure.issue" });
    expect(registry.completionSteps["closure.issue"]).toMatchObject({
      c2: "retry",
      c3: "issue",
      completionConditions: [{ validator: "git-clean" }, { validator: "type-check" }],
    });
    // format-error is closer's own pattern: climpt's deno fmt pattern and its template move aside.
    expect(registry.validators["format-check"].failurePattern).toBe("check-format-error");
    const retry = join(project, ".agent/iterator/prompts/steps/retry/issue");
    await expect(
      readFile(join(retry, "f_failed_check-format-error.md"), "utf8"),
    ).resolves.toContain("{{#each files}}");
  });

  it("turns {uv-NAME} into the parameter's variable and a command step into a prompt", async () => {
    await importJson(join(CLIMPT, "triager"));
    const triage = await readFile(
      join(project, ".agent/triager/prompts/steps/closure/triage/f_default.md"),
      "utf8",
    );
    expect(triage).toContain("{{workflow}}");
    expect(triage).not.toContain("{uv-workflow}");
    await importJson(join(CLIMPT, "merger"));
    const merge = await readFile(
      join(project, ".agent/merger/prompts/steps/closure/merge/f_default.md"),
      "utf8",
    );
    expect(merge).toContain(
      "agents/scripts/merge-pr.ts --pr {{prNumber}} --verdict {{verdictPath}}",
    );
  });

  it("writes to --out under that folder's name, and refuses a folder that holds files", async () => {
    const { code, report } = await importJson(join(CLIMPT, "triager"), "--out", ".agent/sorter");
    expect(code).toBe(0);
    expect(report.name).toBe("sorter");
    const again = await cli(
      "import",
      "climpt",
      join(CLIMPT, "triager"),
      "--cwd",
      project,
      "--out",
      ".agent/sorter",
    );
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(join(project, ".agent/sorter"));
    expect(again.stderr).toContain("already holds files");
  });

  it("names the file when agent.json is malformed, or the folder or registry is missing", async () => {
    const broken = join(project, "climpt/.agent/broken");
    await cp(join(CLIMPT, "triager"), broken, { recursive: true });
    await writeFile(join(broken, "agent.json"), '{\n  "name": "broken",\n}\n');
    const malformed = await cli("import", "climpt", broken, "--cwd", project);
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toContain(`${join(broken, "agent.json")}:2:19`);
    expect(malformed.stderr).toContain("invalid JSON");

    const missing = await cli("import", "climpt", join(project, "nowhere"), "--cwd", project);
    expect(missing.stderr).toContain(`no climpt agent folder at ${join(project, "nowhere")}`);

    await writeFile(join(broken, "agent.json"), '{ "name": "broken" }');
    await rm(join(broken, "steps_registry.json"));
    const noRegistry = await cli("import", "climpt", broken, "--cwd", project);
    expect(noRegistry.stderr).toContain(join(broken, "steps_registry.json"));
    await expect(readFile(join(project, ".agent/broken/agent.json"))).rejects.toThrow();
  });

  it("reads the seeds' spellings: completionPatterns, completionSteps with prompt and onFail, entryStep", async () => {
    const seed = join(project, "climpt/.agent/seeded");
    await mkdir(join(seed, "prompts/steps/initial/issue"), { recursive: true });
    await mkdir(join(seed, "prompts/steps/retry/issue"), { recursive: true });
    await writeFile(
      join(seed, "prompts/steps/initial/issue/f_default.md"),
      "Fix issue {uv-issue}.",
    );
    await writeFile(join(seed, "prompts/steps/retry/issue/f_failed.md"), "Try again.");
    await mkdir(join(seed, "prompts/steps/closure/issue"), { recursive: true });
    await writeFile(
      join(seed, "prompts/steps/closure/issue/f_default.md"),
      "Check your work, then answer.",
    );
    await writeFile(
      join(seed, "agent.json"),
      JSON.stringify({
        name: "seeded",
        parameters: { issue: { type: "number", required: true, flag: "--issue" } },
      }),
    );
    await writeFile(
      join(seed, "steps_registry.json"),
      JSON.stringify({
        entryStep: "initial.issue",
        completionPatterns: { "git-dirty": { edition: "failed", params: [] } },
        validators: {
          "git-clean": {
            type: "command",
            command: "git status --porcelain",
            successWhen: "empty",
            failurePattern: "git-dirty",
          },
        },
        steps: { "initial.issue": { c2: "initial", c3: "issue", completionStep: "closure.issue" } },
        completionSteps: {
          "closure.issue": {
            prompt: { c1: "steps", c2: "closure", c3: "issue" },
            completionConditions: [{ validator: "git-clean", params: { strict: true } }],
            onFail: { retry: true, maxAttempts: 2 },
          },
        },
      }),
    );
    const { code, report } = await importJson(seed);
    expect(report.validation.problems).toEqual([]);
    expect(report.validation.valid).toBe(true);
    expect(code).toBe(0);
    const registry = JSON.parse(
      await readFile(join(project, ".agent/seeded/steps_registry.json"), "utf8"),
    );
    expect(registry).toMatchObject({
      entryStep: "initial.issue",
      steps: { "initial.issue": { completionStep: "closure.issue" } },
      completionSteps: {
        "closure.issue": { prompt: { c2: "closure", c3: "issue" }, onFail: { maxAttempts: 2 } },
      },
    });
    expect(report.unmapped).toEqual([]);
  });
});
