import type { CompletionStepDefinition } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { recordRefusals } from "./guard-sandbox.js";
import type { ConditionRunner } from "./run-conditions.js";
import { emit, type RunContext } from "./run-context.js";

/** One phase of checks: the declaration's (its iteration) or the baseline's (no events). */
export interface CheckPhase {
  readonly checkId: string;
  /** The folder the checks run in: the clean room's (docs/integrity.md#clean-room), or the tree. */
  readonly cwd: string;
  /** The iteration whose events the checks are; absent for the baseline, which records its own. */
  readonly iteration?: number;
  /** What stops the phase's checks: the run's signal unless the phase has one of its own. */
  readonly signal?: AbortSignal;
}

/**
 * The fingerprint of the tree the phase's checks start on, read once and only
 * when one of them may reuse an outcome (docs/completion.md#cached-verdicts);
 * undefined when none may or it cannot be read, and then every check runs. In
 * the clean room it is the commit and the tree object the room holds, which
 * closer's own git hashed (docs/integrity.md#clean-room).
 */
export async function readPhaseFingerprint(
  run: RunContext,
  validatorNames: readonly string[],
  room?: { readonly commit: string; readonly tree: string },
): Promise<string | undefined> {
  const cacheable = validatorNames.some((name) => run.agent.registry.validators[name]?.cache);
  if (!cacheable) return undefined;
  if (room !== undefined) return `room:${room.commit}:${room.tree}`;
  return run.ports.integrity.readTreeFingerprint().catch(() => undefined);
}

/**
 * How many of a phase's validators run at once (docs/completion.md#concurrency): the lowest
 * `concurrency` of the completion steps, all by default.
 */
export function phaseConcurrency(
  steps: readonly (CompletionStepDefinition | undefined)[],
): number | undefined {
  const limits = steps.flatMap((step) =>
    step?.concurrency === undefined ? [] : [step.concurrency],
  );
  return limits.length === 0 ? undefined : Math.min(...limits);
}

/**
 * The runner of a phase's validators: an outcome recorded on the same tree is
 * reused (nothing runs), every other check runs in the run's sandbox and its
 * verdict is kept; an iteration's checks are `validator-start` and
 * `validator-end` events, in condition order (docs/record.md#events).
 */
export function makeCheckRunner(
  run: RunContext,
  phase: CheckPhase,
  fingerprint: string | undefined,
): ConditionRunner {
  const definitionOf = (name: string) => run.agent.registry.validators[name];
  const { iteration } = phase;
  const signal = phase.signal ?? run.signal;
  return {
    reuse({ validator, params }) {
      const definition = definitionOf(validator);
      if (fingerprint === undefined || definition === undefined) return undefined;
      return run.verdicts.find(fingerprint, definition, params);
    },
    async run({ validator, params }) {
      const outcome = await run.ports.validatorRunner(validator, {
        cwd: phase.cwd,
        agentDir: run.agent.dir,
        checkId: phase.checkId,
        // Nothing tells a check it is closer's (docs/integrity.md#toolchain).
        env: {},
        signal,
        ...(params === undefined ? {} : { conditionParams: params }),
      });
      const definition = definitionOf(validator);
      if (fingerprint !== undefined && definition !== undefined)
        run.verdicts.keep(fingerprint, definition, outcome, params);
      return outcome;
    },
    stopped: () => signal.aborted,
    ...(iteration === undefined
      ? {}
      : {
          started: (name: string) => emitStart(run, iteration, name),
          ended: (outcome: ValidatorOutcome) => emitEnd(run, iteration, outcome),
        }),
  };
}

function emitStart(run: RunContext, iteration: number, name: string): void {
  const definition = run.agent.registry.validators[name];
  const command = definition?.type === "command" ? definition.command : undefined;
  emit(run, {
    type: "validator-start",
    iteration,
    validator: name,
    ...(command === undefined ? {} : { command }),
  });
}

function emitEnd(run: RunContext, iteration: number, outcome: ValidatorOutcome): void {
  emit(run, {
    type: "validator-end",
    iteration,
    validator: outcome.validator,
    valid: outcome.valid,
    ...(outcome.pattern === undefined ? {} : { pattern: outcome.pattern }),
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    durationMs: outcome.durationMs,
    ...(outcome.timedOut === undefined ? {} : { timedOut: outcome.timedOut }),
    ...(outcome.aborted === true ? { aborted: true } : {}),
    params: { ...outcome.params },
    ...(outcome.stdout === undefined ? {} : { stdout: outcome.stdout }),
    ...(outcome.stderr === undefined ? {} : { stderr: outcome.stderr }),
    ...(outcome.configError === undefined ? {} : { configError: outcome.configError }),
    ...(outcome.flaky === undefined ? {} : { flaky: { ...outcome.flaky } }),
    ...(outcome.cached === true ? { cached: true } : {}),
  });
  if (outcome.sandboxRefusals !== undefined) {
    const refusals = outcome.sandboxRefusals;
    recordRefusals(run, { iteration, kind: "validators", refusals, validator: outcome.validator });
  }
}
