import { CloserError } from "../errors.js";
import type { ResolvedAgent } from "../ports/agent.js";
import { lintAgent } from "./lint-agent.js";
import { formatProblem } from "./problem.js";

/**
 * The static checks of `closer validate` on a loaded agent, before any model call: a dangling
 * step target or a template variable nobody supplies stops the run here, not in the middle of
 * it. Throws a CloserError `config_error` listing every error; warnings pass.
 */
export async function assertAgentValid(agent: ResolvedAgent): Promise<void> {
  const report = await lintAgent(agent);
  if (report.valid) return;
  const errors = report.problems.filter((problem) => problem.severity === "error");
  const lines = errors.map((problem) => `  ${formatProblem(problem)}`).join("\n");
  throw new CloserError(
    "config_error",
    `the agent "${agent.name}" has ${errors.length} problem(s), so nothing was run:\n${lines}`,
    { fix: `fix what \`closer validate ${agent.name}\` reports, then run again` },
  );
}
