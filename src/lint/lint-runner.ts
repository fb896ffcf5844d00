/** Checks of agent.json's runner settings that its schema cannot make (docs/definition.md#validate). */
import { stat } from "node:fs/promises";
import { relative, resolve } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import { isGithubToken } from "../process/child-environment.js";
import type { ProblemCollector } from "./problem.js";

/** agent.json's default `runner.systemPrompt`: a missing file there adds none. */
const DEFAULT_SYSTEM_PROMPT = "prompts/system.md";

/** A `runner.systemPrompt` set to a file that does not exist. */
export async function lintSystemPrompt(
  agent: ResolvedAgent,
  problems: ProblemCollector,
): Promise<void> {
  const file = agent.runner.systemPromptPath;
  if (file === resolve(agent.dir, DEFAULT_SYSTEM_PROMPT)) return;
  const isFile = await stat(file).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (isFile) return;
  const shown = relative(agent.dir, file);
  problems.error(
    { file: agent.files.agentJson, jsonPath: "runner.systemPrompt" },
    `the system prompt file ${shown} does not exist`,
    `create ${shown} in the agent folder, or correct runner.systemPrompt (or remove it for none)`,
  );
}

/** Labels configured where `closeAction` never applies them. */
export function lintLabels(agent: ResolvedAgent, problems: ProblemCollector): void {
  const { labels, closeAction } = agent.runner.github;
  if (closeAction !== "close" || labels.add.length + labels.remove.length === 0) return;
  problems.warning(
    { file: agent.files.agentJson, jsonPath: "runner.github.labels" },
    'runner.github.labels are never applied with closeAction "close"',
    'set runner.github.closeAction to "label-and-close" (or "label-only"), or remove the labels',
  );
}

/** closer's GitHub tokens named in `runner.env`, where they are never passed. */
export function lintPassedNames(agent: ResolvedAgent, problems: ProblemCollector): void {
  for (const [list, names] of Object.entries(agent.runner.env)) {
    for (const name of names.filter(isGithubToken)) {
      problems.error(
        { file: agent.files.agentJson, jsonPath: `runner.env.${list}` },
        `${name} is closer's GitHub credential and is never passed through runner.env`,
        "remove it; to give the backend the token, set runner.backend.passGithubToken: true (docs/backends.md#passing-the-github-token)",
      );
    }
  }
}
