import { readFile } from "node:fs/promises";
import path from "node:path";
import { isCloserError } from "../../errors.js";
import { listTemplateNeeds } from "../../prompts/list-template-needs.js";
import { RETRY_VARIABLES, REVIEW_VARIABLES, RUNNER_VARIABLES } from "../../prompts/variables.js";
import { BUILTIN_PATTERNS } from "../../retry/builtin-patterns.js";
import { markdownFiles } from "./copy-agent-files.js";
import type { MappingEntry } from "./mapping-report.js";

/** A variable climpt's runner fills in a prompt, which closer supplies only as a parameter. */
export interface RunnerVariable {
  readonly name: string;
  /** Prompt files (relative to the agent folder) that use it. */
  readonly files: readonly string[];
}

/**
 * The variables the copied prompts use that closer does not supply: not one of its own, not a
 * parameter, not a param of a failure pattern. climpt's runner fills them (from the command
 * line or what it computes); in closer each becomes a string parameter, empty unless given,
 * so every template renders and the value can still be passed (docs/cli.md#import-climpt).
 */
export async function findRunnerVariables(
  out: string,
  known: readonly string[],
): Promise<{ variables: RunnerVariable[]; entries: MappingEntry[] }> {
  const supplied = new Set([
    ...RUNNER_VARIABLES,
    ...RETRY_VARIABLES,
    ...REVIEW_VARIABLES,
    ...Object.values(BUILTIN_PATTERNS).flatMap((pattern) => pattern.params),
    ...known,
  ]);
  const users = new Map<string, string[]>();
  const entries: MappingEntry[] = [];
  for (const file of await markdownFiles(path.join(out, "prompts"))) {
    const relative = path.relative(out, file).split(path.sep).join("/");
    let names: string[];
    try {
      names = listTemplateNeeds(await readFile(file, "utf8"), relative).variables.map(
        (variable) => variable.name,
      );
    } catch (error) {
      if (!isCloserError(error)) throw error;
      entries.push({
        file: relative,
        from: "",
        note: `not a template closer reads: ${error.message}`,
      });
      continue;
    }
    for (const name of new Set(names)) {
      if (supplied.has(name)) continue;
      users.set(name, [...(users.get(name) ?? []), relative]);
    }
  }
  const variables = [...users].map(([name, files]) => ({ name, files })).sort(byName);
  return { variables, entries };
}

function byName(left: RunnerVariable, right: RunnerVariable): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}
