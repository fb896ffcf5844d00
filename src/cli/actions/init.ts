import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { CloserError } from "../../errors.js";
import { explainBadWord } from "../../prompts/c3l.js";
import { chooseChecks } from "../scaffold/choose-checks.js";
import {
  describeJsonStyle,
  detectFormatters,
  type ProjectFormat,
  promptsIgnoreLine,
  withPromptsIgnored,
} from "../scaffold/detect-formatters.js";
import { detectProject } from "../scaffold/detect-project.js";
import { detectSetup } from "../scaffold/detect-setup.js";
import { initBackend } from "../scaffold/init-backend.js";
import { insideGitRepository, missingPrograms } from "../scaffold/init-warnings.js";
import { makeScaffoldFiles } from "../scaffold/scaffold-files.js";
import {
  type BackendSettings,
  ROLE_SCAFFOLD,
  type ScaffoldPlan,
} from "../scaffold/scaffold-plan.js";
import { runningPackageRoot, SCHEMA_FILES, schemaReference } from "../scaffold/schema-location.js";

export interface InitOptions {
  /** The project folder. */
  readonly cwd: string;
  /** Rewrite the scaffold files of an existing agent. */
  readonly force: boolean;
  /** `--test-command`: the tests-pass validator's command, over what the project shows. */
  readonly testCommand?: string;
  /** `--backend`: the backend kind of agent.json. */
  readonly backend?: string;
  /** `--with-evidence`: the answer reports each check's result and output. */
  readonly withEvidence?: boolean;
  /** `--base-url`, `--model`, `--api-key-env`. */
  readonly backendSettings?: BackendSettings;
}

/** `closer init`: reads the project, then writes the scaffold of a new agent (docs/cli.md#init). */
export async function runInit(agent: string, options: InitOptions): Promise<void> {
  const { cwd } = options;
  const badName = explainBadWord(agent);
  if (badName !== undefined) {
    throw new CloserError("usage_error", `agent name "${agent}" is not allowed: ${badName}`, {
      fix: "use lowercase letters, digits, '.', '_' or '-', e.g. closer init iterator",
    });
  }
  if (options.testCommand?.trim() === "") {
    throw new CloserError("usage_error", "--test-command is empty", {
      fix: 'give the command that runs the tests, e.g. --test-command "npm run test:unit"',
    });
  }
  const backend = initBackend(options.backend, options.backendSettings);
  const agentDir = join(cwd, ".agent", agent);
  const shownDir = relative(cwd, agentDir);
  const exists = await stat(agentDir).then(
    () => true,
    () => false,
  );
  if (exists && !options.force) {
    throw new CloserError("usage_error", `agent "${agent}" already exists; nothing was written`, {
      file: shownDir,
      fix: `choose another name, or run closer init ${agent} --force to overwrite its scaffold files`,
    });
  }
  const findings = await detectProject(cwd);
  const setup = await detectSetup((path) =>
    readFile(join(cwd, path), "utf8").catch(() => undefined),
  );
  const { chosen, skipped } = chooseChecks(findings, options.testCommand);
  const format = await detectFormatters((path) =>
    readFile(join(cwd, path), "utf8").catch(() => undefined),
  );
  const packageRoot = await runningPackageRoot();
  const plan: ScaffoldPlan = {
    checks: chosen,
    json: format.json,
    backend,
    ...(setup.length === 0 ? {} : { setup }),
    ...(options.backendSettings === undefined ? {} : { backendSettings: options.backendSettings }),
    ...(options.withEvidence === true ? { withEvidence: true } : {}),
    schemas: {
      agent: await schemaReference(agentDir, SCHEMA_FILES.agent, packageRoot),
      registry: await schemaReference(agentDir, SCHEMA_FILES.registry, packageRoot),
    },
  };
  printPlan(findings.found, plan, skipped, format);
  await printWarnings(cwd, plan);
  for (const file of makeScaffoldFiles(agent, plan)) {
    const path = join(agentDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
    process.stdout.write(`${exists ? "wrote  " : "created"} ${relative(cwd, path)}\n`);
  }
  const ignoreFile = format.prettier ? await ignorePromptsInPrettier(cwd, agent) : undefined;
  printNextSteps(agent, [shownDir, ...(ignoreFile === undefined ? [] : [ignoreFile])], plan);
}

/**
 * prettier formats markdown, and the prompts are templates read as written: their folder goes
 * into .prettierignore (docs/cli.md#init-formatters). Returns the file when it was changed.
 */
async function ignorePromptsInPrettier(cwd: string, agent: string): Promise<string | undefined> {
  const file = ".prettierignore";
  const existing = await readFile(join(cwd, file), "utf8").catch(() => undefined);
  const text = withPromptsIgnored(existing, agent);
  if (text === undefined) return undefined;
  await writeFile(join(cwd, file), text);
  process.stdout.write(
    `ignored ${promptsIgnoreLine(agent)} in ${file}${existing === undefined ? " (created)" : ""}: ` +
      "prettier would reformat the prompt templates\n",
  );
  return file;
}

/** One line for each chosen program not on PATH, and one for a project outside git. */
async function printWarnings(cwd: string, plan: ScaffoldPlan): Promise<void> {
  const checks = plan.checks.map((check) => ({
    check,
    validator: ROLE_SCAFFOLD[check.role].validator,
  }));
  const lines = (await missingPrograms(checks)).map(
    ({ program, validators }) =>
      `warning ${program} is not on PATH: the ${validators.join(" and ")} ` +
      `check${validators.length > 1 ? "s" : ""} will fail until it is installed`,
  );
  if (!(await insideGitRepository(cwd))) {
    lines.push("warning not a git repository: closer runs need git; run `git init` first");
  }
  process.stdout.write(lines.map((line) => `${line}\n`).join(""));
}

function printPlan(
  found: readonly string[],
  plan: ScaffoldPlan,
  skipped: readonly { what: string; why: string }[],
  format: ProjectFormat,
): void {
  const lines = [
    ...(found.length === 0 ? ["found   nothing closer knows how to check"] : []),
    ...found.map((what) => `found   ${what}`),
    "chose   git-clean: git status --porcelain",
    ...plan.checks.map(
      (check) =>
        `chose   ${ROLE_SCAFFOLD[check.role].validator}: ${check.command} (${check.source})`,
    ),
    ...(plan.setup ?? []).map(({ command, source }) => `chose   setup: ${command} (${source})`),
    ...skipped.map((skip) => `skipped ${skip.what}: ${skip.why}`),
    ...(format.jsonSource === undefined
      ? []
      : [`format  JSON the way ${format.jsonSource}: ${describeJsonStyle(format.json)}`]),
    `backend ${plan.backend}`,
    `schema  ${plan.schemas.agent ?? "none: no closer package with its schemas was found"}`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

function printNextSteps(agent: string, paths: readonly string[], plan: ScaffoldPlan): void {
  const noTests = !plan.checks.some((check) => check.role === "test");
  const hint = noTests
    ? [
        "",
        "No test command was found: the agent checks only that the working tree is clean.",
        `Give it one with: closer init ${agent} --force --test-command "<command that runs the tests>"`,
      ]
    : [];
  process.stdout.write(
    [
      ...hint,
      "",
      "Next steps:",
      `  closer validate ${agent}`,
      `  git add ${paths.join(" ")} && git commit -m "Add the ${agent} agent"   (the git-clean check needs a clean tree)`,
      `  closer run ${agent} --task "…"   (or --issue N)`,
      "",
    ].join("\n"),
  );
}
