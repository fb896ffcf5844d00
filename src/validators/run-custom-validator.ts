import { randomBytes } from "node:crypto";
import type { CustomValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import { COMMAND_OUTPUT_BYTES, type CommandResult, runCommand } from "../process/shell-command.js";
import {
  CUSTOM_VALIDATOR_PROGRAM,
  type ProgramReport,
  readProgramReport,
} from "./custom-validator-program.js";
import {
  elapsedMs,
  makeAbortedOutcome,
  makeCheckAdditions,
  makeCheckEnv,
  makeConfigErrorOutcome,
} from "./validator-outcome.js";

/** What a custom validator module's function receives. */
export interface CustomValidatorInput {
  readonly cwd: string;
  readonly agentDir: string;
  readonly checkId: string;
  /** The caller's additions to the environment; closer adds none (docs/integrity.md#toolchain). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the check times out or the run stops. */
  readonly signal: AbortSignal;
  /** The completion condition's `params` (docs/completion.md#condition-params); `{}` when it has none. */
  readonly params: Readonly<Record<string, unknown>>;
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

function isResult(value: unknown): value is CustomValidatorResult {
  if (value === null || typeof value !== "object") return false;
  const { valid, params } = value as Record<string, unknown>;
  const paramsOk = params === undefined || (params !== null && typeof params === "object");
  return typeof valid === "boolean" && paramsOk && !Array.isArray(params);
}

function describeValue(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** How the program ended without a report, in words. */
function describeEnd(result: CommandResult): string {
  return result.signal === undefined ? `exit ${result.exitCode}` : `signal ${result.signal}`;
}

type Judged = { readonly result: CustomValidatorResult } | { readonly configError: string };

/** The module's result, or its fault in one message naming the module, the validator and the fix. */
function judgeReport(report: ProgramReport, where: string): Judged {
  switch (report.kind) {
    case "returned":
      return isResult(report.value)
        ? { result: report.value }
        : {
            configError: `${where} returned ${describeValue(report.value)} — return {valid: boolean, params?: object}`,
          };
    case "load-failed":
      return {
        configError: `cannot load ${where}: ${report.message} — check that the file exists and is a JavaScript module`,
      };
    case "no-function":
      return { configError: `${where} exports no function — export ${SIGNATURE}` };
    case "threw":
      return {
        configError: `${where} threw: ${report.message} — fix the module so it returns {valid, params}`,
      };
    case "unsendable":
      return {
        configError: `${where} returned a value that is not JSON (${report.message}) — return {valid: boolean, params?: object} of plain data`,
      };
  }
}

/**
 * Runs a `custom` validator: a module of the agent that judges the work
 * itself, in a `node` process of its own bounded by the validator's timeout
 * (docs/completion.md#custom-validators).
 */
export async function runCustomValidator(
  definition: CustomValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  const startedMs = performance.now();
  const nonce = randomBytes(16).toString("hex");
  const env = makeCheckAdditions(context);
  const input = {
    cwd: context.cwd,
    agentDir: context.agentDir,
    checkId: context.checkId,
    env,
    params: context.conditionParams ?? {},
  };
  const result = await runCommand({
    command: [process.execPath, "--input-type=module", "--eval", CUSTOM_VALIDATOR_PROGRAM],
    cwd: context.cwd,
    env: makeCheckEnv(context),
    inheritEnv: false,
    input: JSON.stringify({ nonce, module: definition.module, input }),
    timeoutMs: definition.timeoutMs,
    signal: context.signal,
    ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
    reportPipe: true,
    maxOutputBytes: COMMAND_OUTPUT_BYTES,
  });
  const durationMs = elapsedMs(startedMs);
  const output = { stdout: result.stdout, stderr: result.stderr };
  const failed = (fields: Partial<ValidatorOutcome>): ValidatorOutcome => ({
    validator: definition.name,
    valid: false,
    pattern: definition.failurePattern,
    params: {},
    durationMs,
    ...output,
    ...fields,
  });
  if (result.aborted) return makeAbortedOutcome(definition, durationMs, output);
  if (result.timedOut) return failed({ timedOut: true });
  const where = `module ${definition.module} of validator "${definition.name}"`;
  const report = readProgramReport(result.report, nonce);
  if (report === undefined) {
    const reason = `${where} ended (${describeEnd(result)}) before returning a result`;
    return failed({ exitCode: result.exitCode, params: { reason } });
  }
  const judged = judgeReport(report, where);
  if ("configError" in judged) {
    return { ...makeConfigErrorOutcome(definition, judged.configError, durationMs), ...output };
  }
  const { valid, params } = judged.result;
  return {
    validator: definition.name,
    valid,
    ...(valid ? {} : { pattern: definition.failurePattern }),
    params: params ?? {},
    durationMs,
    ...output,
  };
}
