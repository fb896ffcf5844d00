import { CloserError, wholeNumberAtLeastOne } from "../errors.js";
import { deepFreeze } from "../plain-object.js";
import type { CliOverrides, ResolvedAgent } from "../ports/agent.js";
import type { BackendKind, SandboxMode } from "../ports/runner-config.js";
import { BACKEND_KINDS } from "../ports/runner-config.js";
import { SANDBOX_MODES } from "./agent-file-record-and-env.js";
import { withDefinitionFiles } from "./definition-files.js";

/**
 * The one place where CLI flags are merged over agent.json
 * (docs/style.md#principle-8: defaults < agent.json < flags). Returns a new, deeply
 * frozen ResolvedAgent, with the files the given one was loaded from; the given one is
 * not changed. A bad value is a CloserError `usage_error` naming the flag.
 */
export function applyCliOverrides(agent: ResolvedAgent, overrides: CliOverrides): ResolvedAgent {
  const { runner } = agent;
  const backendKind = overrides.backend === undefined ? undefined : checkBackend(overrides.backend);
  const sandboxMode = overrides.sandbox === undefined ? undefined : checkSandbox(overrides.sandbox);
  const maxIterations =
    overrides.maxIterations === undefined
      ? undefined
      : wholeNumberAtLeastOne("--max-iterations", overrides.maxIterations);
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
      },
      sandbox: {
        ...runner.sandbox,
        ...(sandboxMode === undefined ? {} : { mode: sandboxMode }),
      },
    },
  };
  return deepFreeze(withDefinitionFiles(overridden, agent.definitionFiles));
}

/** The overrides that change something: absent fields, and `worktree`/`verbose` that keep the file's value, left out. */
function givenOverrides(overrides: CliOverrides): CliOverrides {
  const given = Object.entries(overrides).filter(([key, value]) => {
    if (value === undefined) return false;
    if (key === "worktree") return value === false;
    return key !== "verbose" || value === true;
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
