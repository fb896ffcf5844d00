/**
 * Each backend's side of `closer doctor` (docs/cli.md#doctor): the CLI or binary it starts and
 * the credential it reads, found where the backends and closer's credentials module look.
 */
import { access, constants } from "node:fs/promises";
import { join, resolve } from "node:path";
import { STATE_FOLDERS, userStateFolder } from "../../credentials/backend-state.js";
import { FAMILY_APIS, holdsKey, keyFamilyOf } from "../../credentials/model-keys.js";
import { readProviderSettings } from "../../credentials/provider-settings.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import type { BackendConfig } from "../../ports/runner-config.js";
import { onPath } from "../scaffold/init-warnings.js";
import { type DoctorCheck, type DoctorPlace, notOk, ok } from "./doctor-check.js";

/** The npm package that installs each agent CLI. */
const INSTALL: Readonly<Record<string, string>> = {
  claude: "npm install -g @anthropic-ai/claude-code",
  codex: "npm install -g @openai/codex",
  opencode: "npm install -g opencode-ai",
};

/** The checks of one agent's backend (its closing reviews' backends included). */
export async function checkBackends(
  agent: ResolvedAgent,
  place: DoctorPlace,
): Promise<DoctorCheck[]> {
  const reviewers = Object.values(agent.registry.completionSteps).flatMap(
    (step) => step.closureReview?.backend ?? [],
  );
  const checks: DoctorCheck[] = [];
  for (const config of [agent.runner.backend, ...reviewers]) {
    checks.push(...(await checkBackend(config, agent.dir, place)));
  }
  return checks.map((check) => ({ ...check, agents: [agent.name] }));
}

async function checkBackend(
  config: BackendConfig,
  agentDir: string,
  place: DoctorPlace,
): Promise<DoctorCheck[]> {
  const { kind } = config;
  switch (kind) {
    case "claude-sdk":
      return [await claudeSdkExecutable(config, place), await claudeCredential(kind, place)];
    case "claude-cli": {
      const { resolveClaudeCliCommand } = await import("../../backends/agent-cli/claude-cli.js");
      const command = resolveClaudeCliCommand(config, place.env);
      return [
        await executable({ kind, command, install: INSTALL.claude }, agentDir, place),
        await claudeCredential(kind, place),
      ];
    }
    case "codex":
      return [
        await executable(
          { kind, command: config.command ?? ["codex"], install: INSTALL.codex },
          agentDir,
          place,
        ),
        await codexCredential(place),
      ];
    case "opencode":
      return [
        await executable(
          { kind, command: config.command ?? ["opencode"], install: INSTALL.opencode },
          agentDir,
          place,
        ),
        await opencodeCredential(place),
      ];
    case "openai-compatible":
      return openaiCompatible(config, place);
    case "command":
      return [await executable({ kind, command: config.command ?? [] }, agentDir, place)];
    case "replay":
      return [await replaySource(config, agentDir)];
    default:
      return [];
  }
}

async function exists(file: string, mode: number = constants.F_OK): Promise<boolean> {
  return access(file, mode).then(
    () => true,
    () => false,
  );
}

/** A program a backend starts, and the command that installs it. */
interface BackendProgram {
  readonly kind: string;
  readonly command: readonly string[];
  readonly install?: string;
}

/** The program a backend starts: `./x` from the agent folder, a path as it is, a name on PATH. */
async function executable(
  { kind, command, install }: BackendProgram,
  agentDir: string,
  place: DoctorPlace,
): Promise<DoctorCheck> {
  const [program] = command;
  const name = `${kind}: ${program ?? "command"}`;
  if (program === undefined || program === "") {
    return notOk(
      "missing",
      name,
      "no command configured",
      "set runner.backend.command in agent.json",
    );
  }
  const isPath = program.includes("/");
  const file =
    program.startsWith("./") || program.startsWith("../") ? resolve(agentDir, program) : program;
  const found = isPath
    ? await exists(file, constants.X_OK)
    : await onPath(program, place.env.PATH ?? "");
  if (found) return ok(name, isPath ? `${file} is executable` : `${program} is on PATH`);
  const where = isPath ? `${file} is missing or not executable` : `${program} is not on PATH`;
  return notOk(
    "missing",
    name,
    where,
    install ?? `install ${program}, or fix runner.backend.command in agent.json`,
  );
}

/** The Claude Code the Agent SDK starts: CLOSER_CLAUDE_PATH, backend.claudePath, or the SDK's own. */
async function claudeSdkExecutable(
  config: BackendConfig,
  place: DoctorPlace,
): Promise<DoctorCheck> {
  const { findNativeClaudeExecutable, resolveClaudeExecutable } = await import(
    "../../backends/claude-sdk/executable.js"
  );
  const found = await resolveClaudeExecutable({
    env: place.env,
    ...(config.claudePath === undefined ? {} : { claudePath: config.claudePath }),
    findNativeExecutable: findNativeClaudeExecutable,
  });
  if (found.path !== undefined) return ok("claude-sdk: Claude Code", found.path);
  return notOk(
    "missing",
    "claude-sdk: Claude Code",
    found.error.message,
    "npm install (with optional dependencies) in closer's folder, or export CLOSER_CLAUDE_PATH=<a Claude Code executable>",
  );
}

/** A key of the Anthropic API, a cloud platform, or Claude Code's login. */
async function claudeCredential(
  kind: "claude-sdk" | "claude-cli",
  place: DoctorPlace,
): Promise<DoctorCheck> {
  const name = `${kind}: credential`;
  if (keyFamilyOf(kind, place.env) === undefined)
    return ok(name, "a cloud platform of Claude Code");
  const key = FAMILY_APIS.anthropic.keyVariables.find(
    (variable) => (place.env[variable] ?? "") !== "",
  );
  if (key !== undefined) return ok(name, `${key} is set`);
  const login = join(
    userStateFolder("claude", place.env, place.home),
    ...STATE_FOLDERS.claude.login,
  );
  if (await exists(login)) return ok(name, `Claude Code's login (${login})`);
  const fix = "export ANTHROPIC_API_KEY=<your key>, or log in once with claude (then /login)";
  if (place.platform === "darwin") {
    return notOk("warning", name, "no key set; Claude Code's login may be in the keychain", fix);
  }
  return notOk("missing", name, "no ANTHROPIC_API_KEY and no Claude Code login", fix);
}

async function codexCredential(place: DoctorPlace): Promise<DoctorCheck> {
  const name = "codex: credential";
  if (holdsKey("openai", place.env)) return ok(name, "an OpenAI key is set");
  const login = join(userStateFolder("codex", place.env, place.home), ...STATE_FOLDERS.codex.login);
  const settings = await readProviderSettings(["codex"], { ...place, project: place.cwd });
  const [problem] = settings.problems;
  if (problem !== undefined) return notOk("warning", name, problem.message, problem.fix);
  if (settings.endpoints.length > 0) return ok(name, "the provider of codex's config.toml");
  if (await exists(login)) return ok(name, `codex's login (${login})`);
  return notOk(
    "missing",
    name,
    "no OPENAI_API_KEY and no codex login",
    "export OPENAI_API_KEY=<your key>, or codex login",
  );
}

/** opencode keeps its providers' keys in its own configuration: what closer can read of it. */
async function opencodeCredential(place: DoctorPlace): Promise<DoctorCheck> {
  const name = "opencode: credential";
  const settings = await readProviderSettings(["opencode"], { ...place, project: place.cwd });
  const [problem] = settings.problems;
  if (problem !== undefined) return notOk("warning", name, problem.message, problem.fix);
  const data = place.env.XDG_DATA_HOME ?? join(place.home, ".local", "share");
  if (settings.endpoints.length > 0 || (await exists(join(data, "opencode", "auth.json")))) {
    return ok(name, "opencode's own configuration");
  }
  return notOk("warning", name, "no provider login of opencode's found", "opencode auth login");
}

function openaiCompatible(config: BackendConfig, place: DoctorPlace): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  for (const key of ["baseURL", "model"] as const) {
    const value = config[key];
    checks.push(
      value === undefined || value.trim() === ""
        ? notOk(
            "missing",
            `openai-compatible: ${key}`,
            "not set",
            `set runner.backend.${key} in agent.json`,
          )
        : ok(`openai-compatible: ${key}`, value),
    );
  }
  const variable = config.apiKeyEnv;
  if (variable === undefined) {
    checks.push(ok("openai-compatible: key", "none sent (no runner.backend.apiKeyEnv)"));
  } else {
    checks.push(
      (place.env[variable] ?? "") !== ""
        ? ok("openai-compatible: key", `${variable} is set`)
        : notOk(
            "missing",
            "openai-compatible: key",
            `${variable} is not set`,
            `export ${variable}=<the endpoint's key>`,
          ),
    );
  }
  return checks;
}

async function replaySource(config: BackendConfig, agentDir: string): Promise<DoctorCheck> {
  const source = config.replayFrom ?? "";
  const file = resolve(agentDir, source);
  return source !== "" && (await exists(file))
    ? ok("replay: recording", file)
    : notOk(
        "missing",
        "replay: recording",
        `${source === "" ? "no replayFrom" : `${file} does not exist`}`,
        "set runner.backend.replayFrom in agent.json",
      );
}
