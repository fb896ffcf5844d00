/**
 * The one place that turns agent.json's backend configuration into a Backend.
 */
import path from "node:path";
import { CloserError } from "../errors.js";
import { assertPackagesInstalled, OPENAI_COMPATIBLE_PACKAGES } from "../optional-packages.js";
import type { Backend } from "../ports/backend.js";
import { BACKEND_KINDS, type BackendConfig, type BackendKind } from "../ports/runner-config.js";
import { makeChildEnvironment, NO_GRANT } from "../process/child-environment.js";
import { makeClaudeCliBackend, resolveClaudeCliCommand } from "./agent-cli/claude-cli.js";
import { makeCodexBackend } from "./agent-cli/codex.js";
import { makeCommandBackend } from "./agent-cli/command.js";
import { makeOpencodeBackend } from "./agent-cli/opencode.js";
import type { AgentCliEnvironment } from "./agent-cli/run-agent-cli.js";
import { makeClaudeSdkBackend } from "./claude-sdk/claude-sdk.js";
import { withGhShim } from "./gh-shim.js";
import { makeOpenaiCompatibleBackend } from "./openai-compatible/openai-compatible.js";
import { withPricing } from "./pricing.js";
import { makeReplayBackend } from "./replay/replay.js";

export interface MakeBackendOptions {
  /** Absolute path of the agent folder: `replayFrom` and `./`-relative commands are resolved from it. */
  readonly agentDir: string;
  /** The environment closer runs in (CLOSER_CLAUDE_PATH is read from it); defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The environment the backend's processes start from: the run's policy
   * (docs/backends.md#environment). Default: the policy applied to `env` with
   * nothing passed on purpose but `passGithubToken`.
   */
  readonly processEnv?: Readonly<Record<string, string>>;
  /** The backend of kind `scripted` (tests, and library users scripting an agent). */
  readonly scripted?: Backend;
}

/** What a kind's factory gets besides the configuration. */
interface FactoryContext {
  readonly agentDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What the backend's processes get: its environment, and whether the GitHub tokens stay in it. */
  readonly processes: AgentCliEnvironment & { readonly env: Readonly<Record<string, string>> };
  readonly scripted?: Backend;
}

type BackendFactory = (config: BackendConfig, context: FactoryContext) => Backend;

/** One factory per kind: a kind without one does not compile. */
const FACTORIES: Readonly<Record<BackendKind, BackendFactory>> = {
  "claude-sdk": (config, { env, processes }) =>
    makeClaudeSdkBackend(config, {
      env,
      processEnv: processes.env,
      ...(processes.passGithubToken === true ? { passGithubToken: true } : {}),
    }),
  // Claude Code reports its own cost; it only needs the gh shim.
  "claude-cli": (config, { agentDir, env, processes }) =>
    withGhShim(
      makeClaudeCliBackend({
        ...processes,
        command: resolveClaudeCliCommand(
          config.command === undefined
            ? config
            : { ...config, command: commandFrom(config.command, agentDir) },
          env,
        ),
        settingSources: config.settingSources,
        ...(config.maxTurns === undefined ? {} : { maxTurns: config.maxTurns }),
      }),
      processes.env,
    ),
  codex: (config, { agentDir, processes }) =>
    agentCli(
      makeCodexBackend({
        ...processes,
        command: commandFrom(config.command ?? ["codex"], agentDir),
      }),
      config,
      processes.env,
    ),
  opencode: (config, { agentDir, processes }) =>
    agentCli(
      makeOpencodeBackend({
        ...processes,
        command: commandFrom(config.command ?? ["opencode"], agentDir),
      }),
      config,
      processes.env,
    ),
  // closer runs the tools itself: the bash tool vetoes GitHub side effects, the shim is the tripwire.
  // The AI SDK is installed by those who use this backend: missing, it is said before any query.
  "openai-compatible": (config, { env, processes }) => {
    const endpoint = requiredEndpoint(config);
    assertPackagesInstalled(OPENAI_COMPATIBLE_PACKAGES);
    return withGhShim(
      withPricing(
        makeOpenaiCompatibleBackend({ ...config, ...endpoint }, { env, processEnv: processes.env }),
        config.pricing,
      ),
      processes.env,
    );
  },
  command: (config, { agentDir, processes }) =>
    agentCli(
      makeCommandBackend({
        ...processes,
        command: commandFrom(requiredCommand(config), agentDir),
        ...(config.readsOutputSchema === undefined
          ? {}
          : { readsOutputSchema: config.readsOutputSchema }),
      }),
      config,
      processes.env,
    ),
  replay: (config, { agentDir }) =>
    makeReplayBackend({
      source: path.resolve(agentDir, requiredReplaySource(config)),
      root: agentDir,
    }),
  scripted: (_config, { scripted }) => {
    if (scripted !== undefined) return scripted;
    throw new CloserError("config_error", "the scripted backend needs a script", {
      jsonPath: "runner.backend.kind",
      found: "scripted",
      fix: "pass `scripted` (see closer-agent/testing makeScriptedBackend) when running the agent from code, or choose another backend kind",
    });
  },
};

/**
 * An agent CLI cannot veto a tool use: it runs with the `gh` shim first on its
 * PATH (docs/worktrees-and-github.md#github-boundary); tokens it reports
 * without a price are priced (docs/backends.md#cost).
 */
function agentCli(
  backend: Backend,
  config: BackendConfig,
  processEnv: Readonly<Record<string, string>>,
): Backend {
  return withGhShim(withPricing(backend, config.pricing), processEnv);
}

/** Make the backend `config.kind` names; a configuration it cannot use is a CloserError. */
export function makeBackend(config: BackendConfig, options: MakeBackendOptions): Backend {
  // A caller without the types (plain JavaScript, a cast) can still name a kind that has no factory.
  if (!Object.hasOwn(FACTORIES, config.kind)) {
    throw new CloserError("config_error", `unknown backend kind ${JSON.stringify(config.kind)}`, {
      jsonPath: "runner.backend.kind",
      expected: `one of ${BACKEND_KINDS.join(", ")}`,
      found: JSON.stringify(config.kind),
      fix: `set runner.backend.kind to one of ${BACKEND_KINDS.join(", ")}`,
    });
  }
  const env = options.env ?? process.env;
  const passGithubToken = config.passGithubToken === true;
  const processEnv =
    options.processEnv ?? makeChildEnvironment("backend", env, { ...NO_GRANT, passGithubToken });
  return FACTORIES[config.kind](config, {
    ...options,
    env,
    processes: { env: processEnv, ...(passGithubToken ? { passGithubToken } : {}) },
  });
}

function requiredCommand(config: BackendConfig): readonly string[] {
  if (config.command !== undefined && config.command.length > 0 && config.command[0] !== "") {
    return config.command;
  }
  throw new CloserError("config_error", "the command backend needs the command to run", {
    jsonPath: "runner.backend.command",
    expected: 'an executable and its arguments, e.g. ["./answer.sh"]',
    found: config.command === undefined ? "nothing" : JSON.stringify(config.command),
    fix: "set runner.backend.command in agent.json",
  });
}

/** The endpoint and model of the openai-compatible backend (a `--backend` override may lack them). */
function requiredEndpoint(config: BackendConfig): { baseURL: string; model: string } {
  const missing = (["baseURL", "model"] as const).find(
    (key) => config[key] === undefined || config[key].trim() === "",
  );
  if (missing === undefined) return { baseURL: config.baseURL ?? "", model: config.model ?? "" };
  const example =
    missing === "baseURL"
      ? '"http://localhost:11434/v1"'
      : 'the endpoint\'s name, e.g. "qwen2.5-coder:14b"';
  throw new CloserError("config_error", `the openai-compatible backend needs "${missing}"`, {
    jsonPath: `runner.backend.${missing}`,
    expected: example,
    found: "nothing",
    fix: `set runner.backend.${missing} in agent.json`,
  });
}

function requiredReplaySource(config: BackendConfig): string {
  if (config.replayFrom !== undefined && config.replayFrom.trim() !== "") return config.replayFrom;
  throw new CloserError("config_error", "the replay backend needs a recorded session", {
    jsonPath: "runner.backend.replayFrom",
    expected: "a session JSON file or a recorded run folder, relative to the agent folder",
    found: "nothing",
    fix: "set runner.backend.replayFrom in agent.json",
  });
}

/** An executable written as `./x` or `../x` is relative to the agent folder; a bare name is looked up on the PATH. */
function commandFrom(command: readonly string[], agentDir: string): readonly string[] {
  const [executable, ...args] = command;
  if (executable === undefined) return command;
  const isRelativePath = executable.startsWith("./") || executable.startsWith("../");
  return isRelativePath ? [path.resolve(agentDir, executable), ...args] : command;
}
