/**
 * What the OS sandbox (docs/sandbox.md#cost) costs a run: starting it once
 * per process, preparing a run's sandbox (one wrap per kind of process), and
 * each validator run inside it, beside the same validator run bare. A
 * machine where the sandbox cannot run gives null figures and the reason,
 * never a failure.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readGitLayout } from "../dist/sandbox/git-layout.js";
import { prepareRunSandbox } from "../dist/sandbox/run-sandbox.js";
import { sandboxSupport, stopSandbox } from "../dist/sandbox/sandbox-runtime.js";
import { TRAMPOLINE } from "../dist/sandbox/sandboxed-launch.js";
import { runValidator } from "../dist/validators/run-validator.js";
import { median, round } from "./support.mjs";

/** Validator runs on each side, interleaved. */
const VALIDATOR_RUNS = 40;
/** Runs' sandboxes prepared and released, and wraps made alone. */
const PREPARES = 5;
const WRAPS = 10;

/**
 * @template T
 * @param {() => Promise<T>} work
 * @returns {Promise<[number, T]>}
 */
async function timed(work) {
  const startedMs = performance.now();
  const result = await work();
  return [performance.now() - startedMs, result];
}

/**
 * @param {string} reason
 * @param {number | null} initializeMs
 */
function unavailable(reason, initializeMs = null) {
  return {
    sandboxInitializeMs: initializeMs === null ? null : round(initializeMs),
    sandboxPrepareRunMs: null,
    sandboxWrapMs: null,
    validatorBareMs: null,
    validatorSandboxedMs: null,
    sandboxCostPerValidatorMs: null,
    sandboxUnavailable: reason,
  };
}

/**
 * The sandbox's place for a run of `agent` in the tree at `tree`, as a run sets it up.
 * @param {import("../dist/definition/types.js").ResolvedAgent} agent
 * @param {string} tree
 * @param {string} runId
 */
async function prepareFor(agent, tree, runId) {
  const git = await readGitLayout(tree);
  return prepareRunSandbox({
    config: { ...agent.runner.sandbox, mode: "auto" },
    runId,
    agentFile: agent.files.agentJson,
    place: {
      tree,
      ...(git === undefined ? {} : { git }),
      runsDir: join(git?.commonDir ?? tree, "closer", "runs"),
      agentDirs: [agent.dir],
      home: process.env.HOME ?? homedir(),
      backendKinds: [agent.runner.backend.kind],
      backendEnv: {},
      config: agent.runner.sandbox,
    },
  });
}

/**
 * The sandbox's cost figures, measured on `validatorName` of `agent` in the tree at `tree`.
 * @param {import("../dist/definition/types.js").ResolvedAgent} agent
 * @param {string} tree
 * @param {string} validatorName
 */
export async function measureSandboxCost(agent, tree, validatorName) {
  const [initializeMs, support] = await timed(() => sandboxSupport());
  if (!support.works) return unavailable(support.reason, initializeMs);
  try {
    return await measureWith(agent, tree, validatorName, initializeMs);
  } catch (error) {
    return unavailable(String(error), initializeMs);
  } finally {
    await stopSandbox();
  }
}

/**
 * @param {import("../dist/definition/types.js").ResolvedAgent} agent
 * @param {string} tree
 * @param {string} validatorName
 * @param {number} initializeMs
 */
async function measureWith(agent, tree, validatorName, initializeMs) {
  const prepareMs = [];
  for (let index = 0; index < PREPARES; index += 1) {
    const [ms, state] = await timed(() => prepareFor(agent, tree, `bench-${index}`));
    if (!state.on) return unavailable(state.reason, initializeMs);
    prepareMs.push(ms);
    await state.sandbox.release();
  }
  const state = await prepareFor(agent, tree, "bench");
  if (!state.on) return unavailable(state.reason, initializeMs);
  const { sandbox } = state;
  // A run's release stops the sandbox's library when no run holds it: the prepare above started it again.
  const current = await sandboxSupport();
  if (!current.works) return unavailable(current.reason, initializeMs);
  try {
    const rules = sandbox.policy.validators;
    const filesystem = {
      allowWrite: [...rules.allowWrite],
      denyWrite: [...rules.denyWrite],
      denyRead: [...rules.denyRead],
    };
    const wrapMs = [];
    for (let index = 0; index < WRAPS; index += 1) {
      const [ms] = await timed(() =>
        current.manager.wrap(TRAMPOLINE, { filesystem }, { cwd: tree }),
      );
      current.manager.cleanupAfterCommand();
      wrapMs.push(ms);
    }
    const validator = timeValidator(agent, tree, validatorName);
    const bare = [];
    const sandboxed = [];
    await validator.bare(); // warm-up of both sides: file cache, git index
    await validator.sandboxed(sandbox);
    for (let index = 0; index < VALIDATOR_RUNS; index += 1) {
      const sides = [() => validator.bare(), () => validator.sandboxed(sandbox)];
      for (const side of index % 2 === 0 ? sides : sides.reverse()) {
        const { ms, inSandbox } = await side();
        (inSandbox ? sandboxed : bare).push(ms);
      }
    }
    const bareMs = median(bare);
    const sandboxedMs = median(sandboxed);
    return {
      sandboxInitializeMs: round(initializeMs),
      sandboxPrepareRunMs: round(median(prepareMs)),
      sandboxWrapMs: round(median(wrapMs)),
      sandboxValidator: validator.command,
      validatorRuns: VALIDATOR_RUNS,
      validatorBareMs: round(bareMs),
      validatorSandboxedMs: round(sandboxedMs),
      sandboxCostPerValidatorMs: round(sandboxedMs - bareMs),
    };
  } finally {
    await sandbox.release();
  }
}

/**
 * One validator of the agent, run as the checks run it: bare, or inside the run's sandbox (a
 * wrap of its own, left when it ends) with its refusals taken afterwards. A sandboxed run must end as the bare one did.
 * @param {import("../dist/definition/types.js").ResolvedAgent} agent
 * @param {string} tree
 * @param {string} validatorName
 */
function timeValidator(agent, tree, validatorName) {
  const definition = agent.registry.validators[validatorName];
  if (definition?.type !== "command")
    throw new Error(`${validatorName} is not a command validator`);
  /** @param {import("../dist/process/launch.js").LaunchWrapper | undefined} wrapper */
  const context = (wrapper) => ({
    cwd: tree,
    agentDir: agent.dir,
    checkId: "bench",
    env: {},
    signal: new AbortController().signal,
    ...(wrapper === undefined ? {} : { sandbox: wrapper }),
  });
  let bareExitCode;
  return {
    command: definition.command,
    async bare() {
      const [ms, outcome] = await timed(() => runValidator(definition, context(undefined)));
      bareExitCode = outcome.exitCode;
      return { ms, inSandbox: false };
    },
    /** @param {import("../dist/sandbox/run-sandbox.js").RunSandbox} sandbox */
    async sandboxed(sandbox) {
      const [ms, refusals] = await timed(async () => {
        const entry = await sandbox.enter("validators");
        const outcome = await runValidator(definition, context(entry.wrapper)).finally(() =>
          entry.leave(),
        );
        if (outcome.exitCode !== bareExitCode) {
          throw new Error(
            `the sandboxed validator exited ${outcome.exitCode}, bare ${bareExitCode}: ${outcome.stderr ?? ""}`,
          );
        }
        return sandbox.takeRefusals("validators");
      });
      if (refusals.length > 0) {
        throw new Error(`the sandbox refused the validator: ${refusals.join("; ")}`);
      }
      return { ms, inSandbox: true };
    },
  };
}
