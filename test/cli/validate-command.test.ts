import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cli } from "./support/cli-repo.js";

const BROKEN = fileURLToPath(new URL("../fixtures/broken/", import.meta.url));
const WARNING = fileURLToPath(new URL("../fixtures/validate-warning/", import.meta.url));
const REGISTRY = ".agent/iterator/steps_registry.json";
const AGENT_JSON = ".agent/iterator/agent.json";
const SCHEMA = ".agent/iterator/schemas/issue.schema.json";
const INITIAL_PROMPT = ".agent/iterator/prompts/steps/initial/issue/f_default.md";

function errorLines(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith(".agent/") && !line.includes(" warning: "));
}

/** Each broken definition: the one line validate must print, as `file: jsonPath: ` plus what it names. */
const BROKEN_CASES: readonly {
  readonly name: string;
  readonly where: string;
  readonly names: readonly string[];
}[] = [
  { name: "bad-json", where: `${AGENT_JSON}:4:33: `, names: ["invalid JSON", "trailing comma"] },
  {
    name: "unknown-key",
    where: `${AGENT_JSON}: runner.maxIteration: `,
    names: ['unknown key "maxIteration"', '"maxIterations"'],
  },
  {
    name: "missing-prompt",
    where: `${REGISTRY}: steps["initial.issue"]: `,
    names: ['step "initial.issue"', "prompts/steps/initial/issue/f_default.md"],
  },
  {
    name: "missing-pattern",
    where: `${REGISTRY}: validators["git-clean"].failurePattern: `,
    names: ['"dirty-tree"', "completionPatterns", '"git-dirty"'],
  },
  {
    name: "undeclared-template-variable",
    where: `${INITIAL_PROMPT}:3: `,
    names: ["{{issueUrl}}", '"issueUrl"', 'step "initial.issue"'],
  },
  {
    name: "unknown-task-field",
    where: `${INITIAL_PROMPT}:1: `,
    names: ["{{task.name}}", 'no field "name"', "task.title"],
  },
  {
    name: "ref-cycle",
    where: `${SCHEMA}: /$defs/node: `,
    names: ["$ref cycle", "#/$defs/node → #/$defs/node", 'steps["initial.issue"].outputSchemaRef'],
  },
  {
    name: "unresolvable-pointer",
    where: `${SCHEMA}: /initial.issue/$ref: `,
    names: ['"#/$defs/respons"', 'steps["initial.issue"].outputSchemaRef'],
  },
  {
    name: "path-word-dotdot",
    where: `${REGISTRY}: steps["initial.issue"].c3: `,
    names: ['c3 = "issue..up"', '".."'],
  },
  {
    name: "next-missing",
    where: `${REGISTRY}: steps["initial.issue"].next: `,
    names: ['"continuation.issue"', 'step "initial.issue"'],
  },
  {
    name: "completion-step-missing",
    where: `${REGISTRY}: steps["initial.issue"].completionStep: `,
    names: ['"complete.isue"', '"complete.issue"'],
  },
  {
    name: "entry-step-missing",
    where: `${REGISTRY}: entryStep: `,
    names: ['"start.issue"', '"initial.issue"'],
  },
  {
    name: "condition-param-missing",
    where: `${REGISTRY}: completionSteps["complete.issue"].completionConditions[1].params: `,
    names: ['validator "notes-exist" uses {{changelog}}', "docs/completion.md#condition-params"],
  },
  {
    name: "condition-validator-missing",
    where: `${REGISTRY}: completionSteps["complete.issue"].completionConditions[1].validator: `,
    names: ['validator "tests-pass"', '"git-clean"'],
  },
  {
    name: "invalid-success-when",
    where: `${REGISTRY}: validators["git-clean"].successWhen: `,
    names: ['"exitcode:0"', "exitCode:N"],
  },
  {
    name: "custom-module-missing",
    where: `${REGISTRY}: validators["api-check"].module: `,
    names: ["validators/api-check.js", '"api-check"'],
  },
  {
    name: "schema-file-missing",
    where: ".agent/iterator/schemas/step.schema.json: ",
    names: ["step.schema.json", "does not exist", 'steps["initial.issue"].outputSchemaRef'],
  },
  {
    name: "template-syntax",
    where: `${INITIAL_PROMPT}:3: `,
    names: ["not valid Handlebars", "{{#each}} is never closed", "{{/each}}"],
  },
  {
    name: "module-outside-agent",
    where: `${REGISTRY}: validators["api-check"].module: `,
    names: ['"../shared/api-check.mjs"', "leaves the agent folder"],
  },
  {
    name: "schema-file-outside",
    where: `${REGISTRY}: steps["initial.issue"].outputSchemaRef.file: `,
    names: ['"../../other/issue.schema.json"', "leaves the schemas folder"],
  },
  {
    name: "system-prompt-outside",
    where: `${AGENT_JSON}: runner.systemPrompt: `,
    names: ['"../../../prompts/system.md"', "leaves the agent folder"],
  },
  {
    name: "decision-file-outside",
    where: `${AGENT_JSON}: runner.decisionFile: `,
    names: ['"/tmp/decision.json"', "leaves the working tree"],
  },
  {
    name: "ref-file-missing",
    where: `${SCHEMA}: /initial.issue/$ref: `,
    names: ['"common.schema.json#/$defs/response"', "does not exist", "schemas/common.schema.json"],
  },
  {
    name: "uppercase-path-word",
    where: `${REGISTRY}: steps["initial.issue"].c2: `,
    names: ['"Initial"', 'e.g. "initial"'],
  },
  {
    name: "unknown-extractor",
    where: `${REGISTRY}: validators["git-clean"].extractParams.changedFiles: `,
    names: ['"parseChangedFile"', 'did you mean "parseChangedFiles"'],
  },
  {
    name: "entry-step-in-agent-json",
    where: `${AGENT_JSON}: runner.entryStep: `,
    names: ['"start"', '"initial.issue"'],
  },
  {
    name: "front-matter-yaml",
    where: ".agent/iterator/prompts/steps/retry/issue/f_failed_lint-error.md:2:21: ",
    names: ["front matter is not valid YAML"],
  },
  {
    name: "duplicate-key",
    where: `${REGISTRY}:4:3: completionPatterns: `,
    names: ['duplicate key "completionPatterns"', "lines 3 and 4"],
  },
];

describe("closer validate on broken definitions", () => {
  it.each(BROKEN_CASES)("$name: names the file, the JSON path and the key", async (broken) => {
    const result = await cli("validate", "--cwd", join(BROKEN, broken.name));
    expect(result.code).toBe(2);
    const lines = errorLines(result.stdout);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line?.startsWith(broken.where)).toBe(true);
    for (const name of broken.names) expect(line).toContain(name);
    expect(line).toMatch(/\(fix: .+\)$/);
    expect(result.stdout).toContain("✗ iterator");
  });

  it("names the param, the pattern, the template and the validators when a param is not extracted", async () => {
    const result = await cli("validate", "iterator", "--cwd", join(BROKEN, "param-not-extracted"));
    expect(result.code).toBe(2);
    const lines = errorLines(result.stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\.agent\/iterator\/steps_registry\.json: completionPatterns\["git-dirty"\]\.params: /,
    );
    expect(lines[0]).toContain('param "untrackedFiles" of pattern "git-dirty"');
    expect(lines[0]).toContain('validator(s) "git-clean"');
    expect(lines[1]).toMatch(
      /^\.agent\/iterator\/prompts\/steps\/retry\/issue\/f_failed_git-dirty\.md:2: params: /,
    );
    expect(lines[1]).toContain('"untrackedFiles"');
    expect(lines[1]).toContain('pattern "git-dirty"');
    expect(lines[1]).toContain('"git-clean"');
  });

  it("reports every problem of a definition, not just the first", async () => {
    const result = await cli("validate", "--cwd", join(BROKEN, "several-problems"));
    expect(result.code).toBe(2);
    const lines = errorLines(result.stdout);
    expect(lines).toHaveLength(3);
    expect(lines.join("\n")).toContain('steps["initial.issue"].next');
    expect(lines.join("\n")).toContain("completionConditions[1].validator");
    expect(lines.join("\n")).toContain("{{issueUrl}}");
    expect(result.stdout).toContain("✗ iterator: 3 problem(s)");
  });

  it("prints the problems as JSON with --json", async () => {
    const result = await cli("validate", "--json", "--cwd", join(BROKEN, "next-missing"));
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout);
    expect(report.valid).toBe(false);
    expect(report.agents[0].problems).toEqual([
      expect.objectContaining({
        agent: "iterator",
        severity: "error",
        file: REGISTRY,
        jsonPath: 'steps["initial.issue"].next',
        message: expect.stringContaining('"continuation.issue"'),
      }),
    ]);
  });

  it("reports an agent that does not exist", async () => {
    const result = await cli("validate", "nope", "--cwd", join(BROKEN, "next-missing"));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('agent "nope" not found');
  });

  it("warns, but passes, when a retry falls back to the built-in text", async () => {
    const result = await cli("validate", "--cwd", join(WARNING, "builtin-retry"));
    expect(result.code).toBe(0);
    expect(errorLines(result.stdout)).toEqual([]);
    const warning = result.stdout.split("\n").find((line) => line.includes('pattern "git-dirty"'));
    expect(warning).toMatch(
      /^\.agent\/iterator\/steps_registry\.json: completionSteps\["complete\.issue"\]: warning: /,
    );
    expect(warning).toContain("built-in generic text");
    expect(result.stdout).toContain("✓ iterator is valid");
  });
});

describe("closer init, validate and list", () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), "closer-init-"));
  });
  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it("scaffolds an agent that validates, and prints every file it created", async () => {
    await writeFile(
      join(cwd, "package.json"),
      JSON.stringify({ scripts: { test: "node --test" } }),
    );
    const init = await cli("init", "demo", "--cwd", cwd);
    expect(init.code).toBe(0);
    const created = init.stdout
      .split("\n")
      .filter((line) => line.startsWith("created "))
      .map((line) => line.slice("created ".length).trim());
    expect(created).toContain(".agent/demo/agent.json");
    expect(created).toContain(".agent/demo/prompts/steps/retry/issue/f_failed_test-failed.md");
    for (const path of created)
      await expect(readFile(join(cwd, path), "utf8")).resolves.not.toBe("");
    const agentJson = JSON.parse(await readFile(join(cwd, ".agent/demo/agent.json"), "utf8"));
    // No closer in the project's node_modules: the schema of the closer that runs.
    expect(await readFile(new URL(agentJson.$schema), "utf8")).toContain('"$schema"');
    expect(agentJson.name).toBe("demo");

    const validate = await cli("validate", "demo", "--cwd", cwd);
    expect(validate.stdout).toContain("✓ demo is valid");
    expect(validate.stdout).not.toContain("warning:");
    expect(validate.code).toBe(0);
  });

  it("takes a custom validator's params from its pattern, since its module returns them", async () => {
    await cli("init", "demo", "--cwd", cwd);
    const registryFile = join(cwd, ".agent/demo/steps_registry.json");
    const registry = JSON.parse(await readFile(registryFile, "utf8"));
    registry.validators.review = {
      type: "custom",
      module: "validators/review.mjs",
      failurePattern: "git-dirty",
    };
    registry.completionSteps["complete.issue"].completionConditions.push({ validator: "review" });
    await writeFile(registryFile, JSON.stringify(registry, null, 2));
    await mkdir(join(cwd, ".agent/demo/validators"));
    await writeFile(
      join(cwd, ".agent/demo/validators/review.mjs"),
      "export default () => ({ valid: true, params: { changedFiles: [], untrackedFiles: [] } });\n",
    );
    const result = await cli("validate", "demo", "--cwd", cwd);
    expect(result.stdout).toContain("✓ demo is valid");
    expect(result.code).toBe(0);
  });

  it("refuses to overwrite an existing agent unless forced", async () => {
    expect((await cli("init", "demo", "--cwd", cwd)).code).toBe(0);
    const marker = join(cwd, ".agent/demo/agent.json");
    await writeFile(marker, "{}");
    const again = await cli("init", "demo", "--cwd", cwd);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('agent "demo" already exists');
    expect(again.stderr).toContain("--force");
    expect(await readFile(marker, "utf8")).toBe("{}");
    const forced = await cli("init", "demo", "--cwd", cwd, "--force");
    expect(forced.code).toBe(0);
    expect(JSON.parse(await readFile(marker, "utf8")).name).toBe("demo");
  });

  it("refuses an agent name that is not a path word", async () => {
    const result = await cli("init", "../escape", "--cwd", cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"../escape"');
  });

  it("lists agents valid with their descriptions, and invalid ones with their first problem", async () => {
    await cli("init", "demo", "--cwd", cwd);
    const description = JSON.parse(
      await readFile(join(cwd, ".agent/demo/agent.json"), "utf8"),
    ).description;
    const listed = await cli("list", "--cwd", cwd);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^demo\\s+valid\\s+${description.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( \\(\\d+ warning\\(s\\)\\))?$`,
        "m",
      ),
    );

    const broken = await cli("list", "--cwd", join(BROKEN, "unknown-key"));
    expect(broken.code).toBe(0);
    expect(broken.stdout).toMatch(
      /^iterator\s+invalid\s+\.agent\/iterator\/agent\.json(:\d+)*: runner\.maxIteration: .*\(closer validate iterator\)$/m,
    );

    const json = await cli("list", "--json", "--cwd", cwd);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        name: "demo",
        description,
        dir: join(cwd, ".agent/demo"),
        valid: true,
      }),
    ]);
  });

  it("validates every agent when none is named, and says so when there are none", async () => {
    const none = await cli("validate", "--cwd", cwd);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no agents found");
    await cli("init", "one", "--cwd", cwd);
    await cli("init", "two", "--cwd", cwd);
    const all = await cli("validate", "--cwd", cwd);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("✓ one is valid");
    expect(all.stdout).toContain("✓ two is valid");
  });
});

describe("help", () => {
  it.each([
    ["list", ["--json", "--cwd"]],
    ["validate", ["[agent]", "--json", "--cwd", "Examples:"]],
    ["init", ["<agent>", "--force", "--cwd", "Examples:"]],
  ])("closer %s --help explains the command, its arguments and options", async (command, words) => {
    const result = await cli(command, "--help");
    expect(result.code).toBe(0);
    for (const word of words) expect(result.stdout).toContain(word);
    expect(result.stdout).toContain("Examples:");
  });
});
