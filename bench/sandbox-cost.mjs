/**
 * What the OS sandbox (docs/sandbox.md#cost) costs a run: starting it once
 * per process, preparing a run's sandbox and starting its held sandboxes (one
 * per kind of process), each process started inside one beside the same
 * process bare, and each validator run inside it, beside the same validator
 * run bare. A machine where the sandbox cannot run gives null figures and the
 * reason, never a failure.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runCommand } from "../dist/process/shell-command.js";
import { readGitLayout } from "../dist/sandbox/git-layout.js";
import { prepareRunSandbox } from "../dist/sandbox/run-sandbox.js";
import { sandboxSupport, stopSandbox } from "../dist/sandbox/sandbox-runtime.js";
import { TRAMPOLINE } from "../dist/sandbox/sandboxed-launch.js";
import { runValidator } from "../dist/validators/run-validator.js";
import { interleave, median, round } from "./support.mjs";

/** Validator runs on each side, interleaved. */
const VALIDATOR_RUNS = 40;
/** Starts of each short program on each side (bare, and in each kind's entry), interleaved. */
const PROCESS_RUNS = 40;
/** The short programs, by the name their figures carry; the git one in the bench's repository. */
const PROGRAMS = {
  true: ["/bin/true"],
  gitStatus: ["git", "status", "--porcelain"],
};
const PROCESS_TIMEOUT_MS = 30_000;
/** Runs' sandboxes prepared, first entered and released, and wraps made alone. */
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
 * Whether the processes of an entry join the kind's held sandbox, and how, or why they each
 * start in a wrap of the entry's own.
 * @param {import("../dist/sandbox/held-join.js").HeldSupport} held
 */
function heldFigure(held) {
  return held.joins
    ? { joined: true, throughParent: held.join.throughParent }
    : { joined: false, reason: held.reason };
}

/**
 * @param {string} reason
 * @param {number | null} initializeMs
 * @param {ReturnType<typeof heldFigure> | null} held
 */
function unavailable(reason, initializeMs = null, held = null) {
  return {
    sandboxInitializeMs: initializeMs === null ? null : round(initializeMs),
    sandboxHeld: held,
    sandboxPrepareRunMs: null,
    sandboxHeldStartMs: null,
    sandboxWrapMs: null,
    sandboxProcessBareMs: null,
    sandboxProcessMs: null,
    sandboxProcessAddedMs: null,
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
  const held = heldFigure(support.held);
  try {
    return await measureWith(agent, tree, validatorName, initializeMs, held);
  } catch (error) {
    return unavailable(String(error), initializeMs, held);
  } finally {
    await stopSandbox();
  }
}

/**
 * @param {import("../dist/definition/types.js").ResolvedAgent} agent
 * @param {string} tree
 * @param {string} validatorName
 * @param {number} initializeMs
 * @param {ReturnType<typeof heldFigure>} held
 */
async function measureWith(agent, tree, validatorName, initializeMs, held) {
  const prepareMs = [];
  const heldStartMs = [];
  for (let index = 0; index < PREPARES; index += 1) {
    const [ms, state] = await timed(() => prepareFor(agent, tree, `bench-${index}`));
    if (!state.on) return unavailable(state.reason, initializeMs, held);
    prepareMs.push(ms);
    try {
      // A run's first entry is its first query's: it waits for the held sandboxes started beside the prepare.
      const [enterMs, entry] = await timed(() => state.sandbox.enter("backend"));
      heldStartMs.push(enterMs);
      await entry.leave();
    } finally {
      await state.sandbox.release();
    }
  }
  const state = await prepareFor(agent, tree, "bench");
  if (!state.on) return unavailable(state.reason, initializeMs, held);
  const { sandbox } = state;
  // A run's release stops the sandbox's library when no run holds it: the prepare above started it again.
  const current = await sandboxSupport();
  if (!current.works) return unavailable(current.reason, initializeMs, held);
  try {
    const processes = await timeProcesses(sandbox, tree);
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
      sandboxHeld: held,
      sandboxPrepareRunMs: round(median(prepareMs)),
      // Without a held sandbox the first entry makes a wrap of its own: `sandboxWrapMs` says what it costs.
      sandboxHeldStartMs: held.joined ? round(median(heldStartMs)) : null,
      sandboxWrapMs: round(median(wrapMs)),
      processRuns: PROCESS_RUNS,
      ...processes,
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
 * Each short program started PROCESS_RUNS times bare and as many times through one entry of
 * each kind, interleaved, as closer starts them (runCommand, the entry's wrapper); medians by
 * program, and by kind for the sandboxed ones. Every start must exit 0 and print what the bare one
 * printed, and the entries leave with nothing refused.
 * @param {import("../dist/sandbox/run-sandbox.js").RunSandbox} sandbox
 * @param {string} tree
 */
async function timeProcesses(sandbox, tree) {
  const entries = {
    backend: await sandbox.enter("backend"),
    validators: await sandbox.enter("validators"),
  };
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? homedir() };
  const bareMs = {};
  const sandboxedMs = { backend: {}, validators: {} };
  const addedMs = { backend: {}, validators: {} };
  try {
    for (const [name, command] of Object.entries(PROGRAMS)) {
      let expected;
      /** @param {import("../dist/process/launch.js").LaunchWrapper | undefined} wrapper */
      const start = (wrapper) => async () => {
        const [ms, result] = await timed(() =>
          runCommand({
            command,
            cwd: tree,
            env,
            inheritEnv: false,
            timeoutMs: PROCESS_TIMEOUT_MS,
            ...(wrapper === undefined ? {} : { sandbox: wrapper }),
          }),
        );
        const said = `${command.join(" ")} exited ${result.exitCode}: ${result.stderr.slice(-2000)}`;
        if (result.exitCode !== 0) throw new Error(said);
        expected ??= result.stdout;
        if (result.stdout !== expected) {
          throw new Error(`${command.join(" ")} printed ${result.stdout}, not ${expected}`);
        }
        return ms;
      };
      const works = {
        bare: start(undefined),
        backend: start(entries.backend.wrapper),
        validators: start(entries.validators.wrapper),
      };
      for (const work of Object.values(works)) await work(); // warm-up: file cache, git index
      const times = await interleave(works, PROCESS_RUNS);
      bareMs[name] = median(times.bare);
      for (const kind of ["backend", "validators"]) {
        sandboxedMs[kind][name] = round(median(times[kind]));
        addedMs[kind][name] = round(median(times[kind]) - bareMs[name]);
      }
      bareMs[name] = round(bareMs[name]);
    }
  } finally {
    await entries.backend.leave();
    await entries.validators.leave();
  }
  for (const kind of ["backend", "validators"]) {
    const refusals = await sandbox.takeRefusals(kind);
    if (refusals.length > 0) {
      throw new Error(`the sandbox refused a ${kind} process: ${refusals.join("; ")}`);
    }
  }
  return {
    sandboxProcessBareMs: bareMs,
    sandboxProcessMs: sandboxedMs,
    sandboxProcessAddedMs: addedMs,
  };
}

/**
 * One validator of the agent, run as the checks run it: bare, or inside the run's sandbox (an
 * entry of its own, left when it ends) with its refusals taken afterwards. A sandboxed run must end as the bare one did.
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
