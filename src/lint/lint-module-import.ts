/**
 * Whether each custom validator's module imports: in a `node` process of its
 * own, with the validators' environment, since the module is the definition's
 * code, not closer's (docs/definition.md#validate).
 */
import { relative } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { CustomValidatorDefinition } from "../ports/registry.js";
import { makeChildEnvironment } from "../process/child-environment.js";
import { keyPath, type ProblemCollector } from "./problem.js";

const IMPORT_TIMEOUT_MS = 20_000;

/**
 * Imports the module named by argv[1]; prints nothing when it loads, else the error, and
 * whether it is a syntax error, whose place `node --check` then finds.
 */
const IMPORT_PROGRAM = `
import { pathToFileURL } from "node:url";
try {
  await import(pathToFileURL(process.argv[1]).href);
} catch (error) {
  const syntax = error instanceof SyntaxError;
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  process.stdout.write(JSON.stringify({ name, message, syntax }));
}
process.exit(0);
`;

interface ImportFailure {
  readonly name: string;
  readonly message: string;
  readonly where: string;
}

/** How a module is run: in the agent folder, with the validators' environment. */
interface ModuleProcess {
  readonly runCommand: typeof import("../process/shell-command.js").runCommand;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

async function importFailure(
  module: string,
  agent: ResolvedAgent,
): Promise<ImportFailure | undefined> {
  const grant = { ...agent.runner.env, passGithubToken: false };
  // Loaded only for an agent with custom validators: `validate` of any other spawns nothing (docs/cli.md#start-up).
  const { runCommand } = await import("../process/shell-command.js");
  const node: ModuleProcess = {
    runCommand,
    cwd: agent.dir,
    env: makeChildEnvironment("validators", process.env, grant),
  };
  const result = await runNode(node, ["--input-type=module", "--eval", IMPORT_PROGRAM, module]);
  if (result.timedOut) {
    return { name: "Timeout", message: `importing took over ${IMPORT_TIMEOUT_MS} ms`, where: "" };
  }
  if (result.stdout.trim() === "") return undefined;
  let reported: ImportFailure & { readonly syntax?: boolean };
  try {
    reported = JSON.parse(result.stdout) as ImportFailure & { readonly syntax?: boolean };
  } catch {
    return { name: "Error", message: result.stdout.trim(), where: "" };
  }
  const { syntax, ...failure } = reported;
  return { ...failure, where: syntax === true ? await syntaxErrorPlace(node, module) : "" };
}

/** `file:line` of the syntax error `node --check` finds in `module`; empty when it names none. */
async function syntaxErrorPlace(node: ModuleProcess, module: string): Promise<string> {
  const checked = await runNode(node, ["--check", module]);
  return checked.stderr.split("\n").find((line) => line.startsWith(`${module}:`)) ?? "";
}

function runNode(node: ModuleProcess, args: readonly string[]) {
  return node.runCommand({
    command: [process.execPath, ...args],
    cwd: node.cwd,
    env: node.env,
    inheritEnv: false,
    timeoutMs: IMPORT_TIMEOUT_MS,
  });
}

/** An error for each custom validator module (that exists) whose import fails, naming the file and why. */
export async function lintModuleImports(
  agent: ResolvedAgent,
  problems: ProblemCollector,
  found: ReadonlySet<CustomValidatorDefinition>,
): Promise<void> {
  for (const [name, validator] of Object.entries(agent.registry.validators)) {
    if (validator.type !== "custom" || !found.has(validator)) continue;
    const failure = await importFailure(validator.module, agent);
    if (failure === undefined) continue;
    const file = relative(agent.dir, validator.module);
    const where = failure.where === "" ? "" : ` at ${relative(agent.dir, failure.where)}`;
    problems.error(
      { file: agent.files.registry, jsonPath: `${keyPath("validators", name)}.module` },
      `module ${file} of custom validator "${name}" does not import: ${failure.name}: ${failure.message}${where}`,
      failure.name === "SyntaxError"
        ? `fix the syntax error in ${file}`
        : `make ${file} importable by node (its imports installed, no error at load)`,
    );
  }
}
