import { CloserError } from "../../errors.js";
import type { ParameterDefinition, ResolvedAgent } from "../../ports/agent.js";
import { assertKnownOptions, hintFor } from "./known-options.js";

/** A closer option as the usage messages list it. */
export interface OptionHelp {
  readonly flags: string;
  readonly description: string;
}

export interface ParameterFlagsInput {
  /** Command-line tokens closer did not recognise (the agent's flags and their values). */
  readonly tokens: readonly string[];
  readonly agent: ResolvedAgent;
  /** Values of closer's own options by flag (`--issue` → "12"), for parameters declared with the same flag. */
  readonly closerValues: Readonly<Record<string, string | undefined>>;
  /** Parameter names the run supplies itself (an issue run supplies `issue`). */
  readonly supplied: readonly string[];
  /** closer's options, for the message about an unknown flag. */
  readonly closerOptions: readonly OptionHelp[];
  /** The command as typed, for the message about an unknown flag (default `closer run`). */
  readonly command?: string;
}

/**
 * Reads the agent's parameters (agent.json `parameters.<name>.flag`) from the
 * command line, typed: `--flag value` or `--flag=value`; a boolean is
 * `--flag`, `--flag=false` or `--no-<flag>`. An unknown flag (with commander's
 * suggestion: docs/cli.md#unknown-options), a bad value or a missing required
 * parameter is a usage error.
 */
export function parseParameterFlags(input: ParameterFlagsInput): Record<string, unknown> {
  const parameters = Object.values(input.agent.parameters);
  const values: Record<string, unknown> = {};
  for (const parameter of parameters) {
    const given = input.closerValues[parameter.flag];
    if (given !== undefined) values[parameter.name] = convert(parameter, given, input.agent);
  }
  const tokens = [...input.tokens];
  while (tokens.length > 0) {
    const token = tokens.shift() ?? "";
    const [flag, inline] = splitFlag(token);
    const parameter = parameters.find((candidate) => candidate.flag === flag);
    const negated = parameters.find(
      (candidate) => candidate.type === "boolean" && `--no-${candidate.flag.slice(2)}` === flag,
    );
    if (negated !== undefined && inline === undefined) {
      values[negated.name] = false;
    } else if (parameter?.type === "boolean") {
      values[parameter.name] =
        inline === undefined ? true : convert(parameter, inline, input.agent);
    } else if (parameter !== undefined) {
      const text = inline ?? tokens.shift();
      if (text === undefined) throw missingValue(parameter, input.agent);
      values[parameter.name] = convert(parameter, text, input.agent);
    } else {
      throw unknownFlag(token, input);
    }
  }
  assertRequired(parameters, values, input);
  return values;
}

function splitFlag(token: string): [string, string | undefined] {
  if (!token.startsWith("--")) return [token, undefined];
  const equals = token.indexOf("=");
  return equals === -1 ? [token, undefined] : [token.slice(0, equals), token.slice(equals + 1)];
}

function convert(parameter: ParameterDefinition, text: string, agent: ResolvedAgent): unknown {
  if (parameter.type === "string") return text;
  if (parameter.type === "number") {
    const value = text.trim() === "" ? Number.NaN : Number(text);
    if (Number.isFinite(value)) return value;
  }
  if (parameter.type === "boolean") {
    if (/^(true|yes|1)$/i.test(text)) return true;
    if (/^(false|no|0)$/i.test(text)) return false;
  }
  throw new CloserError("usage_error", `${parameter.flag} needs a ${parameter.type}`, {
    file: agent.files.agentJson,
    jsonPath: `parameters.${parameter.name}`,
    expected: parameter.type === "boolean" ? "true or false" : `a ${parameter.type}`,
    found: JSON.stringify(text),
    fix: `pass e.g. ${example(parameter)}`,
  });
}

function example(parameter: ParameterDefinition): string {
  if (parameter.type === "boolean") return parameter.flag;
  return `${parameter.flag} ${parameter.type === "number" ? "3" : "VALUE"}`;
}

function missingValue(parameter: ParameterDefinition, agent: ResolvedAgent): CloserError {
  return new CloserError("usage_error", `${parameter.flag} needs a value`, {
    file: agent.files.agentJson,
    jsonPath: `parameters.${parameter.name}`,
    expected: `a ${parameter.type}`,
    found: "nothing",
    fix: `pass e.g. ${example(parameter)}`,
  });
}

function unknownFlag(token: string, input: ParameterFlagsInput): CloserError {
  const known = {
    command: input.command ?? "closer run",
    options: input.closerOptions,
    agent: input.agent,
  };
  if (token.startsWith("-")) assertKnownOptions([splitFlag(token)[0]], known);
  const what = token.startsWith("-")
    ? `unknown option '${token}'`
    : `unexpected argument "${token}"`;
  return new CloserError("usage_error", what, { found: token, fix: hintFor(known) });
}

function assertRequired(
  parameters: readonly ParameterDefinition[],
  values: Readonly<Record<string, unknown>>,
  input: ParameterFlagsInput,
): void {
  const missing = parameters.filter(
    (parameter) =>
      parameter.required &&
      parameter.default === undefined &&
      values[parameter.name] === undefined &&
      !input.supplied.includes(parameter.name),
  );
  const [first] = missing;
  if (first === undefined) return;
  const flags = missing.map((parameter) => parameter.flag).join(", ");
  throw new CloserError("usage_error", `agent "${input.agent.name}" needs ${flags}`, {
    file: input.agent.files.agentJson,
    jsonPath: `parameters.${first.name}`,
    expected: missing.map((parameter) => `${parameter.flag} <${parameter.type}>`).join(", "),
    found: "nothing",
    fix: `pass ${missing.map(example).join(" ")}`,
  });
}
