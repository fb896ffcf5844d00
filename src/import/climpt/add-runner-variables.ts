import { isPlainObject } from "../../plain-object.js";
import type { MappingEntry } from "./mapping-report.js";
import { findRunnerVariables } from "./runner-variables.js";

type Json = Record<string, unknown>;

/**
 * Adds to agent.json a string parameter, empty unless given, for each variable the prompts use
 * that climpt's runner fills and closer does not supply (docs/cli.md#import-climpt).
 */
export async function addRunnerVariables(
  out: string,
  agentJson: Json,
  registry: Json,
  closerFlags: ReadonlySet<string>,
): Promise<MappingEntry[]> {
  const parameters = isPlainObject(agentJson.parameters) ? agentJson.parameters : {};
  const patterns = isPlainObject(registry.completionPatterns) ? registry.completionPatterns : {};
  const patternParams = Object.values(patterns).flatMap((pattern) =>
    isPlainObject(pattern) && Array.isArray(pattern.params) ? pattern.params.map(String) : [],
  );
  const { variables, entries } = await findRunnerVariables(out, [
    ...Object.keys(parameters),
    ...patternParams,
  ]);
  for (const { name, files } of variables) {
    const flag = `--${name.replace(/_/g, "-")}`;
    parameters[name] = {
      type: "string",
      default: "",
      flag: closerFlags.has(flag) ? `--climpt-${flag.slice(2)}` : flag,
      description: `Filled by climpt's runner in ${files.join(", ")}; empty unless given.`,
    };
    entries.push({
      file: files[0] ?? "prompts/",
      from: `{{${name}}}`,
      to: `agent.json parameters.${name}`,
      note: `used in ${files.length} prompt(s); empty unless given`,
    });
  }
  agentJson.parameters = parameters;
  return entries;
}
