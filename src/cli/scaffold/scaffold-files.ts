import { makeAgentJson, makeIssueSchemaJson, makeRegistryJson } from "./definition-files.js";
import { PROMPT_FILES } from "./prompt-files.js";

/** One file `closer init` writes, by path relative to the agent folder. */
export interface ScaffoldFile {
  readonly path: string;
  readonly text: string;
}

/** Every file of a working issue agent named `name`. */
export function makeScaffoldFiles(name: string): ScaffoldFile[] {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return [
    { path: "agent.json", text: json(makeAgentJson(name)) },
    { path: "steps_registry.json", text: json(makeRegistryJson(name)) },
    { path: "schemas/issue.schema.json", text: json(makeIssueSchemaJson()) },
    ...Object.entries(PROMPT_FILES).map(([path, text]) => ({ path, text })),
  ];
}
