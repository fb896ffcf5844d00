import { stat } from "node:fs/promises";
import type { CommandValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import { COMMAND_OUTPUT_BYTES, type CommandResult, runCommand } from "../process/shell-command.js";
import { extractParams } from "./extract-param.js";
import { isSuccess } from "./success-when.js";
import {
  elapsedMs,
  makeAbortedOutcome,
  makeCheckEnv,
  makeConfigErrorOutcome,
} from "./validator-outcome.js";

/** `sh: 1: foo: not found` (dash), `sh: foo: command not found` (bash), `foo: No such file…`. */
const NOT_FOUND = /([^\s:]+): (?:command )?not found\s*$|([^\s:]+): No such file or directory\s*$/m;

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function describeNotRunnable(
  definition: CommandValidatorDefinition,
  context: CheckContext,
  result: CommandResult,
): Promise<string> {
  const { exitCode, stderr } = result;
  if (!(await isDirectory(context.cwd))) {
    return `cannot run validator "${definition.name}": the working tree ${context.cwd} is not a directory`;
  }
  const match = NOT_FOUND.exec(stderr);
  const named = match?.[1] ?? match?.[2] ?? definition.command.trim().split(/\s+/)[0] ?? "";
  const where = `\`command\` of validator "${definition.name}"`;
  if (exitCode === 127) {
    return `command not found: ${named} (exit 127 from \`${definition.command}\`) — install it or fix ${where}`;
  }
  return `command cannot be run: ${named} (exit 126 from \`${definition.command}\`) — make it executable or fix ${where}`;
}

/** The words of a shell command that can name a program: split at blanks and operators. */
function commandWords(command: string): string[] {
  return command.split(/[\s;&|()<>`"']+/).filter((word) => word !== "");
}

/**
 * Whether a 126/127 is the definition's fault: what could not be found or run
 * is named in the validator's own command (or the working tree is gone).
 * Otherwise the command itself ran and something it started was missing — a
 * tool the tests call — and that is a failed check, shown with its output
 * (docs/completion.md#command-not-found).
 */
async function isOwnCommandMissing(
  definition: CommandValidatorDefinition,
  context: CheckContext,
  result: CommandResult,
): Promise<boolean> {
  if (!(await isDirectory(context.cwd))) return true;
  const match = NOT_FOUND.exec(result.stderr);
  const named = match?.[1] ?? match?.[2];
  if (named === undefined) return true;
  return commandWords(definition.command).includes(named);
}

/** Runs a `command` validator in the working tree; `successWhen` decides (docs/completion.md#success-when). */
export async function runCommandValidator(
  definition: CommandValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  const startedMs = performance.now();
  const result = await runCommand({
    command: definition.command,
    cwd: context.cwd,
    env: makeCheckEnv(context),
    inheritEnv: false,
    timeoutMs: definition.timeoutMs,
    signal: context.signal,
    ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
    maxOutputBytes: COMMAND_OUTPUT_BYTES,
  });
  const durationMs = elapsedMs(startedMs);
  if (result.aborted) {
    return {
      ...makeAbortedOutcome(definition, durationMs, {
        stdout: result.stdout,
        stderr: result.stderr,
      }),
      command: definition.command,
      exitCode: result.exitCode,
    };
  }
  const stopped = result.timedOut;
  const notRunnable = result.exitCode === 126 || result.exitCode === 127;
  if (!stopped && notRunnable && (await isOwnCommandMissing(definition, context, result))) {
    return {
      ...makeConfigErrorOutcome(
        definition,
        await describeNotRunnable(definition, context, result),
        durationMs,
      ),
      command: definition.command,
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
    };
  }
  const valid = !stopped && isSuccess(definition.successWhen, result);
  return {
    validator: definition.name,
    valid,
    ...(valid ? {} : { pattern: definition.failurePattern }),
    params: valid ? {} : extractParams(definition.extractParams, result),
    durationMs,
    command: definition.command,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    ...(result.timedOut ? { timedOut: true } : {}),
  };
}
