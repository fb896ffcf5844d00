import { CloserError } from "../../errors.js";
import { checkAgent } from "../validate/check-agent.js";
import { formatProblem } from "../validate/problem.js";

/**
 * The static checks of `closer validate`, before any model call: a dangling
 * step target or a template variable nobody supplies stops the run here,
 * not in the middle of it.
 */
export async function assertAgentValid(name: string, cwd: string): Promise<void> {
  const report = await checkAgent(name, cwd);
  if (report.valid) return;
  const errors = report.problems.filter((problem) => problem.severity === "error");
  const lines = errors.map((problem) => `  ${formatProblem(problem)}`).join("\n");
  throw new CloserError(
    "config_error",
    `the agent "${name}" has ${errors.length} problem(s), so nothing was run:\n${lines}`,
    { fix: `fix what \`closer validate ${name}\` reports, then run again` },
  );
}
