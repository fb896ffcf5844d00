import { resolve } from "node:path";
import { loadAgent } from "../definition/load-agent.js";
import { resolveRunsDir } from "../record/runs-dir.js";

/**
 * The runs folder a command reads (docs/record.md#runs-dir): `--runs-dir`, else the
 * named agent's `runner.logging.runsDir`, else `<git common dir>/closer/runs`, else
 * `<cwd>/.closer/runs`; `cwd` defaults to the current directory.
 */
export async function locateRunsDir(options: {
  readonly cwd?: string | undefined;
  readonly runsDir?: string | undefined;
  readonly agent?: string | undefined;
}): Promise<string> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.runsDir !== undefined) return resolveRunsDir(cwd, { given: options.runsDir });
  const agent = options.agent === undefined ? undefined : await loadAgent(options.agent, { cwd });
  return resolveRunsDir(cwd, { agent });
}
