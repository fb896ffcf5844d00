import { stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { LAST_RUN, resolveRunId } from "../../observe/find-runs.js";
import { locateRunsDir } from "../../observe/locate-runs-dir.js";
import { describeDifference } from "../../redecide/compare-trails.js";
import { redecideRun } from "../../redecide/redecide-run.js";

export interface ReplayFlags {
  readonly definition?: string;
  readonly runsDir?: string;
  readonly cwd?: string;
  readonly json?: boolean;
}

/** `closer replay`: the run's decisions made again; returns the exit code. */
export async function replayRecordedRun(wanted: string, flags: ReplayFlags): Promise<number> {
  const runDir = await findRunDir(wanted, flags);
  const runId = basename(runDir);
  const result = await redecideRun({
    runDir,
    ...(flags.definition === undefined ? {} : { definitionDir: resolve(flags.definition) }),
  });
  if (flags.json === true) {
    const { identical, differences } = result;
    process.stdout.write(`${JSON.stringify({ identical, differences }, null, 2)}\n`);
  } else if (result.identical) {
    process.stdout.write(
      `replay of ${runId}: the same ${result.replayed.length} decisions as recorded\n`,
    );
  } else {
    const lines = result.differences.map((difference) => `  ${describeDifference(difference)}`);
    process.stdout.write(
      `replay of ${runId}: ${result.differences.length} difference(s) (recorded → replayed)\n${lines.join("\n")}\n`,
    );
  }
  return result.identical ? 0 : 1;
}

/** The run's folder: a run id, a prefix of one or `last` in the runs folder, else a path to one. */
async function findRunDir(runId: string, flags: ReplayFlags): Promise<string> {
  const runsDir = await locateRunsDir({ cwd: flags.cwd, runsDir: flags.runsDir });
  if (
    runId !== LAST_RUN &&
    (await isFolder(resolve(runId))) &&
    !(await isFolder(join(runsDir, runId)))
  ) {
    return resolve(runId);
  }
  return (await resolveRunId(runsDir, runId)).runDir;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}
