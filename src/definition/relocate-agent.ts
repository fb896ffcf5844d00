import path from "node:path";
import { deepFreeze } from "../plain-object.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { ValidatorDefinition } from "../ports/registry.js";
import { withDefinitionFiles } from "./definition-files.js";

/**
 * The agent as `loadAgent` would load it from a copy of its folder at `dir`
 * (a run's definition snapshot, docs/integrity.md#definition-snapshot): every
 * absolute path the loader derived from the folder points into the copy; the
 * rest, the command line's overrides included, is kept. A backend's executable
 * or recording is kept as written, relative, for the backend to resolve
 * against the project's agent folder.
 */
export function relocateAgent(agent: ResolvedAgent, dir: string): ResolvedAgent {
  // Every such path is the folder joined with a path that may not leave it.
  const moved = (file: string) => path.resolve(dir, path.relative(agent.dir, file));
  const { registry, runner } = agent;
  const validators = Object.fromEntries(
    Object.entries(registry.validators).map(([name, validator]): [string, ValidatorDefinition] => [
      name,
      validator.type === "custom" ? { ...validator, module: moved(validator.module) } : validator,
    ]),
  );
  const relocated: ResolvedAgent = {
    ...agent,
    dir,
    files: { agentJson: moved(agent.files.agentJson), registry: moved(agent.files.registry) },
    runner: { ...runner, systemPromptPath: moved(runner.systemPromptPath) },
    registry: { ...registry, validators },
  };
  return deepFreeze(withDefinitionFiles(relocated, agent.definitionFiles));
}
