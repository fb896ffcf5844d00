/**
 * What the processes of a run may do inside the OS sandbox
 * (docs/sandbox.md#policy): where they write, what they may not read, which
 * hosts they reach. Made once per run from where the run works; the same
 * facts always give the same policy.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { ProcessKind } from "../ports/process.js";
import type { BackendKind, SandboxConfig } from "../ports/runner-config.js";
import { GITHUB_TOKEN_VARIABLES } from "../process/child-environment.js";
import type { GitLayout } from "./git-layout.js";
import { gitRules, type HeldPlace } from "./git-rules.js";
import { registryHostsOf } from "./registry-hosts.js";
import { treeSettings } from "./tree-settings.js";
import { baseUrlHosts } from "./url-hosts.js";

/** The sandbox's rules for one kind of process. */
export interface KindPolicy {
  /** Where writes go; everything else is read-only. */
  readonly allowWrite: readonly string[];
  /** Read-only although inside `allowWrite`: closer's git files, the agent, the record. */
  readonly denyWrite: readonly string[];
  /** Not readable: credential stores. */
  readonly denyRead: readonly string[];
  /** Hosts it may connect to (through the sandbox's proxy); none means no network. */
  readonly hosts: readonly string[];
  /** Variables the sandbox withholds whatever the environment holds: closer's GitHub tokens. */
  readonly deniedVariables: readonly string[];
}

export type SandboxPolicy = Readonly<Record<ProcessKind, KindPolicy>> & {
  /** Refusals that do not fail an attempt (docs/sandbox.md#refusals): places and hosts. */
  readonly ignored: { readonly paths: readonly string[]; readonly hosts: readonly string[] };
  /**
   * Read-only places missing in the part of the tree the model's tools see: nothing stands in
   * for them there (docs/sandbox.md#held-whether-or-not); a write at one is judged a refusal.
   */
  readonly unheld: readonly string[];
};

/**
 * Refused writes that shells and tools make on their own at every start, whatever the model
 * does: pyenv's and rbenv's rehash from a sourced ~/.bashrc, tools' caches, npm's own files,
 * the update check many command-line tools run (update-notifier's `~/.config/configstore`).
 * They stay refused.
 */
const IGNORED_BY_DEFAULT = [
  "~/.pyenv/shims",
  "~/.rbenv/shims",
  "~/.cache",
  "~/.npm",
  "~/.config/configstore",
  // Go's telemetry counters (Go 1.23 and later), written by every go command.
  "~/.config/go/telemetry",
  "/sys",
];

/**
 * What each agent CLI does on its own at every start, whatever the model asks: codex looks
 * for a newer release and makes a folder in /tmp; opencode installs its provider packages and
 * writes its project id into the git dir. They stay refused (docs/sandbox.md#refusals).
 */
function ignoredForKind(kind: BackendKind, git: GitLayout | undefined): string[] {
  if (kind === "codex") return ["api.github.com", "/tmp/codex-*"];
  // opencode also keeps its project id in the repository's git dir.
  if (kind === "opencode") {
    return ["registry.npmjs.org", ...(git === undefined ? [] : [join(git.commonDir, "opencode")])];
  }
  return [];
}

/** Where a run works, as the policy needs it. */
export interface SandboxPlace {
  /** The working tree (absolute). */
  readonly tree: string;
  readonly git?: GitLayout;
  /** The run's own folder outside the tree: TMPDIR, and the decision file (absolute). */
  readonly scratchDir: string;
  /** Where run folders go (absolute). */
  readonly runsDir: string;
  /** The folder of closer's worktrees, where the repository has one (absolute). */
  readonly worktreesDir?: string;
  /** The clean room the checks run in: its tree and git dir, writable by the checks only (absolute). */
  readonly checksRoom?: readonly string[];
  /** The agent definition: its folder in the project, and its copy in the tree (absolute). */
  readonly agentDirs: readonly string[];
  readonly home: string;
  /** The run's backend kind, and those of its closing reviews. */
  readonly backendKinds: readonly BackendKind[];
  /** The backend's environment: where its state and its model API are. */
  readonly backendEnv: Readonly<Record<string, string>>;
  readonly config: SandboxConfig;
  /** agent.json's `runner.backend.passGithubToken`: the one grant of a token, to the backend. */
  readonly passGithubToken: boolean;
  /** closer's own servers on loopback the backend reaches: its key proxies (docs/integrity.md#credentials). */
  readonly closerHosts?: readonly string[];
  /**
   * The toolchains' caches of the run (docs/sandbox.md#caches): the model's, writable by the
   * backend alone, and the folder of the checks' own, which the backend may never write.
   */
  readonly caches?: { readonly model: string; readonly checks: string };
}

/** Credential stores of the user's: never readable by a process of the model's. */
const CREDENTIAL_STORES = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".config/gh",
  ".config/gcloud",
  ".config/hub",
  ".netrc",
  ".git-credentials",
  ".config/git/credentials",
];

/** The model API of each backend kind, allowed to the backend. */
const MODEL_HOSTS: Readonly<Record<BackendKind, readonly string[]>> = {
  "claude-sdk": ["anthropic.com", "*.anthropic.com", "claude.ai", "*.claude.ai"],
  "claude-cli": ["anthropic.com", "*.anthropic.com", "claude.ai", "*.claude.ai"],
  codex: ["openai.com", "*.openai.com", "chatgpt.com", "*.chatgpt.com"],
  opencode: [
    "*.anthropic.com",
    "*.openai.com",
    "openrouter.ai",
    "*.openrouter.ai",
    "opencode.ai",
    "*.opencode.ai",
    "models.dev",
    "generativelanguage.googleapis.com",
  ],
  // closer itself calls the endpoint; the model's commands reach no model API.
  "openai-compatible": [],
  command: [],
  scripted: [],
  replay: [],
};

/** The backend's own state (its login among it), in the user's home unless its variable moves it. */
function backendStatePaths(kind: BackendKind, env: Readonly<Record<string, string>>, home: string) {
  const inHome = (...paths: string[]) => paths.map((path) => join(home, path));
  switch (kind) {
    case "claude-sdk":
    case "claude-cli":
      return env.CLAUDE_CONFIG_DIR !== undefined
        ? [env.CLAUDE_CONFIG_DIR]
        : inHome(".claude", ".claude.json");
    case "codex":
      return [env.CODEX_HOME ?? join(home, ".codex")];
    case "opencode": {
      const xdg = (name: string, fallback: string) => env[name] ?? join(home, fallback);
      return [
        join(xdg("XDG_DATA_HOME", ".local/share"), "opencode"),
        join(xdg("XDG_STATE_HOME", ".local/state"), "opencode"),
        join(xdg("XDG_CACHE_HOME", ".cache"), "opencode"),
        join(xdg("XDG_CONFIG_HOME", ".config"), "opencode"),
      ];
    }
    default:
      return [];
  }
}

/** Every backend's state: readable by the backend, not by the validators. */
function allBackendState(home: string): string[] {
  return [
    ...new Set(
      (["claude-sdk", "codex", "opencode"] as const).flatMap((kind) =>
        backendStatePaths(kind, {}, home),
      ),
    ),
  ];
}

export { baseUrlHosts, isLoopbackHost, urlHost } from "./url-hosts.js";

function expandPath(path: string, place: SandboxPlace): string {
  if (path === "~") return place.home;
  if (path.startsWith("~/")) return join(place.home, path.slice(2));
  return isAbsolute(path) ? path : resolve(place.tree, path);
}

/** Closer's worktrees, when the run's tree holds them (a run in the project folder): other runs' trees. */
function otherRunsTrees(place: SandboxPlace): string[] {
  const { worktreesDir, tree } = place;
  return worktreesDir?.startsWith(`${tree}/`) ? [worktreesDir] : [];
}

/**
 * Every place the policy keeps read-only, whether it exists or not: closer's git files, the
 * runs folder, the agent folder and its snapshot, the other runs' trees (docs/sandbox.md#policy).
 */
export function heldPlacesFor(place: SandboxPlace): HeldPlace[] {
  const folders = [place.runsDir, ...place.agentDirs, ...otherRunsTrees(place)];
  return [...gitRules(place).held, ...folders.map((path) => ({ path, make: "folder" as const }))];
}

/**
 * The missing read-only places closer makes before a sandboxed process starts, so the sandbox's
 * read-only hold covers them: those inside a place the model may write (the others are read-only
 * anyway), and only where an empty folder or file reads as nothing there.
 */
export function placesToMake(
  place: SandboxPlace,
  policy: SandboxPolicy = sandboxPolicyFor(place),
): HeldPlace[] {
  const writable = [...policy.backend.allowWrite, ...policy.validators.allowWrite];
  return heldPlacesFor(place).filter(
    ({ path, make }) =>
      make !== undefined &&
      !existsSync(path) &&
      !inSeenTree(path, place.tree) &&
      writable.some((top) => isInside(path, top)),
  );
}

/**
 * Whether `path` lies where the model's tools see it: in the tree but not in its `.git`. A
 * stand-in there, closer's or the library's, would be a file of the tree to them.
 */
function inSeenTree(path: string, tree: string): boolean {
  return isInside(path, tree) && !isInside(path, join(tree, ".git"));
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

/** The run's policy for the backend and for the validators. */
export function sandboxPolicyFor(place: SandboxPlace): SandboxPolicy {
  const git = gitRules(place);
  const existing = (paths: readonly string[]) => paths.filter((path) => existsSync(path));
  const extraWrite = place.config.allowWrite.map((path) => expandPath(path, place));
  const held = heldPlacesFor(place).map(({ path }) => path);
  // A missing place where the tree is seen would get the library's stand-in: not held, judged.
  const unheld = held.filter((path) => !existsSync(path) && inSeenTree(path, place.tree));
  const denyWrite = unique([
    ...held.filter((path) => !unheld.includes(path)),
    ...treeSettings(place.tree),
  ]);
  const denyRead = [
    ...CREDENTIAL_STORES.map((path) => join(place.home, path)),
    ...place.config.denyRead.map((path) => expandPath(path, place)),
  ];
  const common = [place.tree, place.scratchDir, ...git.allowWrite, ...extraWrite];
  const backendState = place.backendKinds.flatMap((kind) =>
    backendStatePaths(kind, place.backendEnv, place.home),
  );
  const ignored = [
    ...IGNORED_BY_DEFAULT,
    ...place.backendKinds.flatMap((kind) => ignoredForKind(kind, place.git)),
    ...place.config.ignoreRefusals,
  ];
  const isPath = (entry: string) => entry.startsWith("~") || entry.includes("/");
  return {
    ignored: {
      paths: ignored.filter(isPath).map((path) => expandPath(path, place)),
      hosts: ignored.filter((entry) => !isPath(entry)),
    },
    unheld,
    backend: {
      allowWrite: unique([
        ...common,
        ...existing(backendState),
        ...(place.caches === undefined ? [] : [place.caches.model]),
      ]),
      // The checks' caches are never the model's, whatever allowWrite names (docs/sandbox.md#caches).
      denyWrite:
        place.caches === undefined ? denyWrite : unique([...denyWrite, place.caches.checks]),
      denyRead,
      deniedVariables: place.passGithubToken ? [] : GITHUB_TOKEN_VARIABLES,
      hosts: unique([
        ...place.backendKinds.flatMap((kind) => MODEL_HOSTS[kind]),
        ...baseUrlHosts(place.backendEnv),
        ...(place.closerHosts ?? []),
        ...place.config.allowedDomains,
        ...(place.config.registries === "none" ? [] : registryHostsOf(place.tree)),
      ]),
    },
    validators: {
      allowWrite: [...common, ...(place.checksRoom ?? [])],
      denyWrite,
      // The backend's state wherever it is, the run's own folder among it (its login may be there).
      denyRead: unique([...denyRead, ...allBackendState(place.home), ...backendState]),
      deniedVariables: GITHUB_TOKEN_VARIABLES,
      hosts: unique(place.config.validatorDomains),
    },
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
