import { CloserError, wholeNumberAtLeastOne } from "../errors.js";
import { deepFreeze } from "../plain-object.js";
import type { CliOverrides, ResolvedAgent } from "../ports/agent.js";
import {
  BACKEND_KINDS,
  type BackendKind,
  type SandboxMode,
  type WorktreeConfig,
} from "../ports/runner-config.js";
import { SANDBOX_MODES } from "./agent-file-record-and-env.js";
import { withDefinitionFiles } from "./definition-files.js";

/** The command line's overrides as given: counts may still be text, names not yet known to be kinds. */
export type CliOverrideFlags = Omit<CliOverrides, "maxIterations" | "backend" | "sandbox"> & {
  readonly maxIterations?: number | string;
  readonly backend?: string;
  readonly sandbox?: string;
};

/**
 * Reads the command line's overrides: the one place each flag's value is checked (a bad
 * one is a CloserError `usage_error` naming the flag). The command line reads its flags
 * here as it parses them; a library caller's go through `applyCliOverrides`.
 */
export function readCliOverrides(flags: CliOverrideFlags): CliOverrides {
  const { maxIterations, backend, sandbox, ...rest } = flags;
  return {
    ...rest,
    ...(maxIterations === undefined
      ? {}
      : { maxIterations: wholeNumberAtLeastOne("--max-iterations", maxIterations) }),
    ...(backend === undefined ? {} : { backend: checkBackend(backend) }),
    ...(sandbox === undefined ? {} : { sandbox: checkSandbox(sandbox) }),
  };
}

/** `withCliOverrides` of the overrides `readCliOverrides` reads from `flags`. */
export function applyCliOverrides(agent: ResolvedAgent, flags: CliOverrideFlags): ResolvedAgent {
  return withCliOverrides(agent, readCliOverrides(flags));
}

/**
 * The one place where CLI flags are merged over agent.json
 * (docs/style.md#principle-8: defaults < agent.json < flags), from overrides already
 * read. Returns a new, deeply frozen ResolvedAgent, with the files the given one was
 * loaded from; the given one is not changed.
 */
export function withCliOverrides(agent: ResolvedAgent, overrides: CliOverrides): ResolvedAgent {
  const { runner } = agent;
  const { maxIterations, backend: backendKind, sandbox: sandboxMode } = overrides;
  const overridden: ResolvedAgent = {
    ...agent,
    cliOverrides: { ...agent.cliOverrides, ...givenOverrides(overrides) },
    runner: {
      ...runner,
      ...(maxIterations === undefined ? {} : { maxIterations }),
      backend: {
        ...runner.backend,
        ...(backendKind === undefined ? {} : { kind: backendKind }),
        ...(overrides.model === undefined ? {} : { model: overrides.model }),
      },
      logging: {
        ...runner.logging,
        ...(overrides.runsDir === undefined ? {} : { runsDir: overrides.runsDir }),
        ...(overrides.verbose === true ? { verbose: true } : {}),
      },
      worktree: {
        ...runner.worktree,
        ...(overrides.worktree === false ? { enabled: false } : {}),
        ...(overrides.deliver === true ? delivering(runner.worktree) : {}),
      },
      sandbox: {
        ...runner.sandbox,
        ...(sandboxMode === undefined ? {} : { mode: sandboxMode }),
      },
    },
  };
  return deepFreeze(withDefinitionFiles(overridden, agent.definitionFiles));
}

/**
 * A delivering run's worktree end (docs/queue.md#delivery): the verified work goes to origin,
 * as a pushed branch and pull request unless agent.json says otherwise.
 */
function delivering(worktree: WorktreeConfig): Partial<WorktreeConfig> {
  return { deliver: true, onSuccess: worktree.onSuccessSet === true ? worktree.onSuccess : "push" };
}

/** The overrides that change something: absent fields, and `worktree`/`verbose`/`deliver` that keep the file's value, left out. */
function givenOverrides(overrides: CliOverrides): CliOverrides {
  const given = Object.entries(overrides).filter(([key, value]) => {
    if (value === undefined) return false;
    if (key === "worktree") return value === false;
    return (key !== "verbose" && key !== "deliver") || value === true;
  });
  return Object.fromEntries(given) as CliOverrides;
}

function checkSandbox(mode: string): SandboxMode {
  const known = SANDBOX_MODES.find((candidate) => candidate === mode);
  if (known !== undefined) return known;
  throw new CloserError("usage_error", `--sandbox ${JSON.stringify(mode)} is not a sandbox mode`, {
    expected: `one of ${SANDBOX_MODES.join(", ")}`,
    found: mode,
    fix: "pass --sandbox auto (the default), on or off",
  });
}

function checkBackend(name: string): BackendKind {
  const kind = BACKEND_KINDS.find((candidate) => candidate === name);
  if (kind !== undefined) return kind;
  throw new CloserError("usage_error", `--backend ${JSON.stringify(name)} is not a backend`, {
    expected: `one of ${BACKEND_KINDS.join(", ")}`,
    found: name,
    fix: `pass --backend with one of ${BACKEND_KINDS.join(", ")}`,
  });
}
