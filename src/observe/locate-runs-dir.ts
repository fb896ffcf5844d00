import { resolve } from "node:path";
import { loadAgent } from "../definition/load-agent.js";
import { defaultRunsDir } from "../record/runs-dir.js";

/**
 * The runs folder a command reads (docs/record.md#runs-dir): `--runs-dir`, else the
 * named agent's `runner.logging.runsDir`, else `<git common dir>/closer/runs`, else
 * `<cwd>/.closer/runs`.
 */
export async function locateRunsDir(options: {
  readonly cwd: string;
  readonly runsDir?: string;
  readonly agent?: string;
}): Promise<string> {
  const cwd = resolve(options.cwd);
  if (options.runsDir !== undefined) return resolve(cwd, options.runsDir);
  if (options.agent !== undefined) {
    const agent = await loadAgent(options.agent, { cwd });
    const configured = agent.runner.logging.runsDir;
    if (configured !== undefined) return resolve(cwd, configured);
  }
  return defaultRunsDir(cwd);
}
