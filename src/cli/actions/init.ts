import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { CloserError } from "../../errors.js";
import { explainBadWord } from "../../prompts/c3l.js";
import { chooseChecks } from "../scaffold/choose-checks.js";
import { detectProject } from "../scaffold/detect-project.js";
import { initBackend } from "../scaffold/init-backend.js";
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
  const { chosen, skipped } = chooseChecks(findings, options.testCommand);
  const packageRoot = await runningPackageRoot();
  const plan: ScaffoldPlan = {
    checks: chosen,
    backend,
    ...(options.backendSettings === undefined ? {} : { backendSettings: options.backendSettings }),
    ...(options.withEvidence === true ? { withEvidence: true } : {}),
    schemas: {
      agent: await schemaReference(agentDir, SCHEMA_FILES.agent, packageRoot),
      registry: await schemaReference(agentDir, SCHEMA_FILES.registry, packageRoot),
    },
  };
  printPlan(findings.found, plan, skipped);
  for (const file of makeScaffoldFiles(agent, plan)) {
    const path = join(agentDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
    process.stdout.write(`${exists ? "wrote  " : "created"} ${relative(cwd, path)}\n`);
  }
  printNextSteps(agent, shownDir, plan);
}

function printPlan(
  found: readonly string[],
  plan: ScaffoldPlan,
  skipped: readonly { what: string; why: string }[],
): void {
  const lines = [
    ...(found.length === 0 ? ["found   nothing closer knows how to check"] : []),
    ...found.map((what) => `found   ${what}`),
    "chose   git-clean: git status --porcelain",
    ...plan.checks.map(
      (check) =>
        `chose   ${ROLE_SCAFFOLD[check.role].validator}: ${check.command} (${check.source})`,
    ),
    ...skipped.map((skip) => `skipped ${skip.what}: ${skip.why}`),
    `backend ${plan.backend}`,
    `schema  ${plan.schemas.agent ?? "none: no closer package with its schemas was found"}`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

function printNextSteps(agent: string, shownDir: string, plan: ScaffoldPlan): void {
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
      `  git add ${shownDir} && git commit -m "Add the ${agent} agent"   (the git-clean check needs a clean tree)`,
      `  closer run ${agent} --task "…"   (or --issue N)`,
      "",
    ].join("\n"),
  );
}
