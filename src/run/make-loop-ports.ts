/**
 * The composition root of a run (docs/architecture.md#the-seam): the loop's ports made
 * once, from closer's default adapters, the run's OS sandbox, the caller's overrides and
 * the plugins' ports, so the loop receives a complete set and builds none of them.
 */
import { join } from "node:path";
import { SchemaValidators } from "../completion/schema-validators.js";
import { SchemaResolver } from "../definition/schema-resolver.js";
import { makeIntegrityProbe } from "../integrity/integrity-probe.js";
import { withPluginPorts } from "../plugins/plugin-ports.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import { BUILTIN_PATTERN_NAMES } from "../ports/check-failure.js";
import type { EventListener } from "../ports/events.js";
import type { ProtectedSet } from "../ports/files.js";
import type {
  ChecksRoomPort,
  Clock,
  LoopPorts,
  RecordSink,
  SandboxPort,
} from "../ports/loop-ports.js";
import type { PluginHost } from "../ports/plugin-host.js";
import type { ChildEnvironments } from "../ports/process.js";
import type { OutputSchemaRef } from "../ports/registry.js";
import type { BackendConfig, JsonSchema } from "../ports/runner-config.js";
import type { ValidatorOutcome, ValidatorRunner } from "../ports/validator.js";
import { makePromptRenderer } from "../prompts/make-prompt-renderer.js";
import { readUntrustedFile } from "../record/read-optional-file.js";
import { buildRetryPrompt } from "../retry/retry-prompt.js";
import { runValidator, unknownValidatorOutcome } from "../validators/run-validator.js";

/** The loop's ports a caller may supply instead of closer's own (docs/loop.md#port-overrides). */
export type PortOverrides = Partial<
  Pick<LoopPorts, "validatorRunner" | "integrity" | "readFile" | "sandbox">
>;

export interface LoopPortsOptions {
  readonly agent: ResolvedAgent;
  readonly backend: Backend;
  /** Makes the backend a closure review names; without it the run's backend reviews. */
  readonly reviewBackend?: (config: BackendConfig) => Promise<Backend>;
  readonly record: RecordSink;
  readonly clock: Clock;
  readonly listener?: EventListener;
  /** The environments the run's processes start from (docs/backends.md#environment). */
  readonly environments: ChildEnvironments;
  /** The run's OS sandbox, when it is on (docs/sandbox.md). */
  readonly sandbox?: SandboxPort;
  /** Where the checks judge the work (docs/integrity.md#clean-room); absent: in the tree. */
  readonly checksRoom?: ChecksRoomPort;
  /** The paths the model must not change (docs/integrity.md#protected-paths). */
  readonly protectedSet: ProtectedSet;
  readonly overrides?: PortOverrides;
  /** The plugins' ports go over everything else (docs/plugins.md#ports). */
  readonly plugins: PluginHost;
}

export function makeLoopPorts(options: LoopPortsOptions): LoopPorts {
  const { agent, sandbox } = options;
  const schemas = new SchemaResolver(join(agent.dir, "schemas"));
  const ports: LoopPorts = {
    backend: options.backend,
    ...(options.reviewBackend === undefined ? {} : { reviewBackend: options.reviewBackend }),
    record: options.record,
    clock: options.clock,
    ...(options.listener === undefined ? {} : { listener: options.listener }),
    resolveSchema: memoize(
      (ref: OutputSchemaRef) => `${ref.file}#${ref.schema}`,
      (ref): Promise<JsonSchema> => schemas.resolve(ref),
    ),
    promptResolver: makePromptRenderer(),
    retryPromptBuilder: buildRetryPrompt,
    readFile: readUntrustedFile,
    validatorRunner: sandboxedValidatorRunner(options),
    schemaValidators: new SchemaValidators(),
    integrity: makeIntegrityProbe(options.protectedSet),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(options.checksRoom === undefined ? {} : { checksRoom: options.checksRoom }),
    ...options.overrides,
  };
  return withPluginPorts(ports, options.plugins);
}

/** The registry's validators, each check's processes in the run's sandbox when it is on. */
function sandboxedValidatorRunner(options: LoopPortsOptions): ValidatorRunner {
  const { agent, sandbox } = options;
  const leaving = oneAtATime();
  return async (name, context) => {
    const definition = agent.registry.validators[name];
    if (definition === undefined) return unknownValidatorOutcome(name);
    const entry = await sandbox?.enter("validators");
    const outcome = await runValidator(definition, {
      ...context,
      processEnv: options.environments.validators,
      ...(entry === undefined ? {} : { sandbox: entry.wrapper }),
    }).catch(async (error: unknown) => {
      await leaving(async () => entry?.leave());
      throw error;
    });
    // Checks run at once (docs/completion.md#concurrency): each leaves the sandbox and takes
    // what it was refused in a turn of its own, so a refusal is told to the check it was made to.
    return leaving(async () => {
      await entry?.leave();
      return withSandboxRefusals(outcome, sandbox);
    });
  };
}

/** Runs the work it is given one after another, in the order given. */
function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = last.then(work);
    last = result.catch(() => undefined);
    return result;
  };
}

/**
 * A check whose processes the OS sandbox refused a write or a connection has failed, whatever
 * it printed (docs/sandbox.md#refusals): a test that phones home does not pass. Its pattern is
 * `sandbox-refused`, whose retry text names each refusal.
 */
async function withSandboxRefusals(
  outcome: ValidatorOutcome,
  sandbox: SandboxPort | undefined,
): Promise<ValidatorOutcome> {
  const refusals = (await sandbox?.takeRefusals("validators")) ?? [];
  if (refusals.length === 0 || outcome.aborted) return outcome;
  const named = refusals.map((line) => `[closer] the OS sandbox refused: ${line}`).join("\n");
  return {
    ...outcome,
    valid: false,
    pattern: BUILTIN_PATTERN_NAMES.sandboxRefused,
    params: { ...outcome.params, refusals },
    stderr:
      outcome.stderr === undefined || outcome.stderr === "" ? named : `${outcome.stderr}\n${named}`,
    sandboxRefusals: refusals,
  };
}

/** Caches a function's promise by key: a run resolves each step's schema once. */
function memoize<Input, Output>(
  keyOf: (input: Input) => string,
  make: (input: Input) => Promise<Output>,
): (input: Input) => Promise<Output> {
  const made = new Map<string, Promise<Output>>();
  return (input) => {
    const key = keyOf(input);
    let result = made.get(key);
    if (result === undefined) {
      result = make(input);
      made.set(key, result);
    }
    return result;
  };
}
