import type { ChildEnvironments, ProcessKind } from "../ports/process.js";

/**
 * The one environment policy for every process that runs the model's code:
 * the backend and the tools it starts, every command validator, every custom
 * validator's child process, the closing review's backend. Each gets an
 * environment built once per run from an allowlist of closer's own
 * environment, never the whole of it (docs/backends.md#environment).
 */

/** closer's GitHub credentials: never in a process of the model's, unless the agent opts in for its backend. */
export const GITHUB_TOKEN_VARIABLES: readonly string[] = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "GH_ENTERPRISE_TOKEN",
];

/**
 * What every kind gets: where to find programs, who and where the user is (git's identity
 * included), locale, temp folders, proxies.
 */
const COMMON_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TMPDIR",
  "TMP",
  "TEMP",
  "CI",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Who commits: CI systems give git its identity this way. An identity is not a credential.
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "EMAIL",
  // Where the user's toolchains live (docs/backends.md#environment): without them rustup, pyenv
  // or nvm look under HOME and find nothing. Locations, never credentials. Not CARGO_HOME: it
  // holds cargo's credentials and is where cargo writes its locks; the sandbox gives each kind
  // one of its own (docs/sandbox.md#caches).
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "GOROOT",
  "GOPATH",
  "PYENV_ROOT",
  "PYENV_VERSION",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "JAVA_HOME",
  "NVM_DIR",
  "NVM_BIN",
  "VOLTA_HOME",
  "ASDF_DIR",
  "ASDF_DATA_DIR",
  "RBENV_ROOT",
  "GEM_HOME",
  "GEM_PATH",
  "DENO_DIR",
  "BUN_INSTALL",
  "PNPM_HOME",
]);

const COMMON_PREFIXES = ["LC_", "XDG_"];

/** The backend's own model credentials and settings (Claude Code, Codex, opencode, the OpenAI API). */
const BACKEND_PREFIXES = ["ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "OPENCODE_"];

/** What the agent passes on purpose: names (a trailing `*` matches a prefix) per kind. */
export interface EnvironmentGrant {
  /** Names passed to every kind of process: agent.json's `runner.env.pass`. */
  readonly pass: readonly string[];
  /** Names passed to the backend only: `runner.env.backend`. */
  readonly backend: readonly string[];
  /** Names passed to the validators only: `runner.env.validators`. */
  readonly validators: readonly string[];
  /** `runner.backend.passGithubToken`: the backend gets closer's GitHub tokens too. */
  readonly passGithubToken: boolean;
}

export const NO_GRANT: EnvironmentGrant = {
  pass: [],
  backend: [],
  validators: [],
  passGithubToken: false,
};

function matches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );
}

export function isGithubToken(name: string): boolean {
  return GITHUB_TOKEN_VARIABLES.includes(name);
}

function allows(kind: ProcessKind, name: string, grant: EnvironmentGrant): boolean {
  if (isGithubToken(name)) return kind === "backend" && grant.passGithubToken;
  if (COMMON_NAMES.has(name) || COMMON_PREFIXES.some((prefix) => name.startsWith(prefix))) {
    return true;
  }
  if (kind === "backend" && BACKEND_PREFIXES.some((prefix) => name.startsWith(prefix))) {
    return true;
  }
  return matches(name, grant.pass) || matches(name, grant[kind]);
}

/** The environment of one kind of process: what the policy and the agent's grant let through of `source`. */
export function makeChildEnvironment(
  kind: ProcessKind,
  source: Readonly<Record<string, string | undefined>>,
  grant: EnvironmentGrant = NO_GRANT,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && allows(kind, name, grant)) env[name] = value;
  }
  return env;
}

/** Every kind's environment, built once for a run. */
export function makeChildEnvironments(
  source: Readonly<Record<string, string | undefined>>,
  grant: EnvironmentGrant = NO_GRANT,
): ChildEnvironments {
  return {
    backend: makeChildEnvironment("backend", source, grant),
    validators: makeChildEnvironment("validators", source, grant),
  };
}

/** The names (never the values) each kind gets, sorted: what the run record keeps. */
export function passedNames(environments: ChildEnvironments): Record<ProcessKind, string[]> {
  return {
    backend: Object.keys(environments.backend).sort(),
    validators: Object.keys(environments.validators).sort(),
  };
}
