import { makeAgentJson, makeIssueSchemaJson, makeRegistryJson } from "./definition-files.js";
import { formatJson } from "./json-text.js";
import { makePromptFiles } from "./prompt-files.js";
import type { ScaffoldPlan } from "./scaffold-plan.js";

/** One file `closer init` writes, by path relative to the agent folder. */
export interface ScaffoldFile {
  readonly path: string;
  readonly text: string;
}

/** Every file of a working issue agent named `name` that checks what `plan` says. */
export function makeScaffoldFiles(name: string, plan: ScaffoldPlan): ScaffoldFile[] {
  const json = (value: unknown) => formatJson(value, plan.json);
  return [
    { path: "agent.json", text: json(makeAgentJson(name, plan)) },
    { path: "steps_registry.json", text: json(makeRegistryJson(name, plan)) },
    { path: "schemas/issue.schema.json", text: json(makeIssueSchemaJson(plan)) },
    ...Object.entries(makePromptFiles(plan)).map(([path, text]) => ({ path, text })),
  ];
}
