/**
 * The project's setup (docs/definition.md#setup): `runner.setup`'s commands, run in order in a
 * new run's tree before its clean room opens and its baseline is taken, so the tree's
 * dependencies are there for the checks. They are the user's own commands on the untouched
 * tree, before the model works: they run outside the OS sandbox, with the validators'
 * environment (no GitHub token) and the package managers' settings.
 */
import type { SetupOutcome } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { RunEventBody } from "../ports/events.js";
import { COMMAND_OUTPUT_BYTES, runCommand } from "../process/shell-command.js";
import { runEnvironments } from "./run-environments.js";
import type { Environment } from "./run-options.js";

/**
 * Package managers' own settings (registry, cache, mirrors), passed to the setup from closer's
 * environment; the GitHub tokens never are.
 */
const PACKAGE_MANAGER_PREFIXES = [
  "npm_config_",
  "NPM_CONFIG_",
  "YARN_",
  "PNPM_",
  "BUN_",
  "DENO_",
  "PIP_",
  "UV_",
  "POETRY_",
  "VIRTUAL_ENV",
  "PYTHON",
  "GOPROXY",
  "GOPATH",
  "GOMODCACHE",
  "GOCACHE",
  "GOFLAGS",
  "GOPRIVATE",
  "GONOPROXY",
  "GONOSUMDB",
  "GOSUMDB",
  "GOTOOLCHAIN",
  "CARGO_",
  "RUSTUP_",
];

/** What the setup says as it goes: a command starts, a command ended. */
export type SetupEventBody = Extract<RunEventBody, { type: "setup-start" | "setup" }>;

/**
 * Runs the setup's commands in `tree` until one fails; the outcomes of those that ran. An
 * abort stops the command running and the rest. A prefix ending in `_` matches the names it
 * starts; others match a name whole or as a prefix (`PYTHONPATH`). `report` hears each
 * command start and end as it happens (docs/observe.md#setup-progress).
 */
export async function runSetup(
  agent: ResolvedAgent,
  where: {
    readonly tree: string;
    readonly env: Environment;
    readonly signal: AbortSignal;
    readonly report?: (event: SetupEventBody) => void;
  },
): Promise<SetupOutcome[]> {
  const { commands, timeoutMs } = agent.runner.setup;
  const outcomes: SetupOutcome[] = [];
  if (commands.length === 0) return outcomes;
  const env = setupEnvironment(where.env, agent);
  for (const [index, command] of commands.entries()) {
    if (where.signal.aborted) break;
    where.report?.({ type: "setup-start", command, index: index + 1, count: commands.length });
    const result = await runCommand({
      command,
      cwd: where.tree,
      env,
      inheritEnv: false,
      timeoutMs,
      signal: where.signal,
      maxOutputBytes: COMMAND_OUTPUT_BYTES,
    });
    // An aborted setup is no failure of it: the run ends `aborted` when the loop starts.
    if (result.aborted) break;
    const exitCode = result.timedOut ? Math.max(result.exitCode, 1) : result.exitCode;
    const outcome: SetupOutcome = {
      command,
      exitCode,
      durationMs: Math.round(result.durationMs),
      ...(result.timedOut ? { timedOut: true } : {}),
      ...(result.stdout === "" ? {} : { stdout: result.stdout }),
      ...(result.stderr === "" ? {} : { stderr: result.stderr }),
    };
    outcomes.push(outcome);
    where.report?.({ type: "setup", ...outcome });
    if (exitCode !== 0) break;
  }
  return outcomes;
}

/** The validators' environment, and the package managers' settings of closer's own. */
export function setupEnvironment(env: Environment, agent: ResolvedAgent): Record<string, string> {
  const managers: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (PACKAGE_MANAGER_PREFIXES.some((prefix) => name.startsWith(prefix))) managers[name] = value;
  }
  return { ...managers, ...runEnvironments(env, agent).validators };
}
