import { pathToFileURL } from "node:url";
import type { CustomValidatorDefinition } from "../definition/types.js";
import type { CheckContext, ValidatorOutcome } from "../ports.js";
import { elapsedMs, makeCheckEnv, makeConfigErrorOutcome } from "./validator-outcome.js";

/** What a custom validator module's function receives. */
export interface CustomValidatorInput {
  readonly cwd: string;
  readonly agentDir: string;
  readonly checkId: string;
  /** closer's additions to the environment, `CLOSER_CHECK_ID` included. */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the check times out or the run stops. */
  readonly signal: AbortSignal;
}

/** What a custom validator module's function returns (or resolves to). */
export interface CustomValidatorResult {
  readonly valid: boolean;
  readonly params?: Record<string, unknown>;
}

export type CustomValidatorFunction = (
  input: CustomValidatorInput,
) => CustomValidatorResult | Promise<CustomValidatorResult>;

const SIGNATURE = "a default export or a named `validate` function returning {valid, params}";

function findFunction(loaded: Record<string, unknown>): CustomValidatorFunction | undefined {
  const fallback = loaded.default as Record<string, unknown> | undefined;
  const candidates = [loaded.default, loaded.validate, fallback?.validate];
  return candidates.find((candidate) => typeof candidate === "function") as
    | CustomValidatorFunction
    | undefined;
}

function isResult(value: unknown): value is CustomValidatorResult {
  if (value === null || typeof value !== "object") return false;
  const { valid, params } = value as Record<string, unknown>;
  const paramsOk = params === undefined || (params !== null && typeof params === "object");
  return typeof valid === "boolean" && paramsOk && !Array.isArray(params);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

type Settled =
  | { kind: "returned"; value: unknown }
  | { kind: "threw"; error: unknown }
  | { kind: "timeout" };

/** Calls the function, bounded by the timeout; the signal it gets aborts on timeout too. */
async function callBounded(
  validate: CustomValidatorFunction,
  context: CheckContext,
  timeoutMs: number,
): Promise<Settled> {
  const controller = new AbortController();
  const signal = AbortSignal.any([context.signal, controller.signal]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("custom validator timed out"));
      resolve({ kind: "timeout" });
    }, timeoutMs);
  });
  const input = {
    cwd: context.cwd,
    agentDir: context.agentDir,
    checkId: context.checkId,
    env: makeCheckEnv(context),
    signal,
  };
  const call = (async (): Promise<Settled> => {
    try {
      return { kind: "returned", value: await validate(input) };
    } catch (error) {
      return { kind: "threw", error };
    }
  })();
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a `custom` validator: a module of the agent that judges the work itself (docs/completion.md#validator-types). */
export async function runCustomValidator(
  definition: CustomValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  const startedMs = performance.now();
  const where = `module ${definition.module} of validator "${definition.name}"`;
  const configError = (message: string) =>
    makeConfigErrorOutcome(definition, message, elapsedMs(startedMs));
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(definition.module).href)) as Record<string, unknown>;
  } catch (error) {
    return configError(
      `cannot load ${where}: ${messageOf(error)} — check that the file exists and is a JavaScript module`,
    );
  }
  const validate = findFunction(loaded);
  if (!validate) return configError(`${where} exports no function — export ${SIGNATURE}`);
  const settled = await callBounded(validate, context, definition.timeoutMs);
  if (settled.kind === "threw" && !context.signal.aborted) {
    return configError(
      `${where} threw: ${messageOf(settled.error)} — fix the module so it returns {valid, params}`,
    );
  }
  if (settled.kind !== "returned") {
    return {
      validator: definition.name,
      valid: false,
      pattern: definition.failurePattern,
      params: {},
      durationMs: elapsedMs(startedMs),
      ...(settled.kind === "timeout" ? { timedOut: true } : {}),
    };
  }
  if (!isResult(settled.value)) {
    return configError(
      `${where} returned ${describeValue(settled.value)} — return {valid: boolean, params?: object}`,
    );
  }
  const { valid, params } = settled.value;
  return {
    validator: definition.name,
    valid,
    ...(valid ? {} : { pattern: definition.failurePattern }),
    params: params ?? {},
    durationMs: elapsedMs(startedMs),
  };
}
