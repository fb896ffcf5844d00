/**
 * closer beside roboppi on the same 20-iteration loop (docs/performance.md#side-by-side): the
 * loop20 run (a bash "model" that bumps a counter, a check that it reached 20), as
 * `closer run --sandbox off` and `--sandbox on`, and as a roboppi workflow whose step runs the
 * same bash line and whose completion check is the same test, `--direct` (its fastest way,
 * the runner spawning the workers itself) and supervised (its default). Five rounds,
 * interleaved; walls and the peak resident memory of the largest process of each run
 * (`/usr/bin/time -f %M`).
 *
 * Measured only where BENCH_ROBOPPI names a roboppi executable (roboppi is not on npm: its
 * README says how to build one); otherwise every figure is null, and `sideBySideSkipped` says
 * why.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeFixtureRepo } from "../dist/testing/index.js";
import { CHECK_LINE, ITERATIONS, LOOP20_AGENT, MODEL_LINE } from "./loop20.mjs";
import { closerBin, interleave, median, megabytes, round, timeProcess } from "./support.mjs";

const ROUNDS = 5;
const TIME = "/usr/bin/time";

/** roboppi's workflow of the same loop: the step's worker runs `bash -e -c <instructions>`. */
const WORKFLOW = `name: loop20
version: "1"
timeout: "10m"
steps:
  bump:
    worker: CUSTOM
    instructions: ${JSON.stringify(MODEL_LINE)}
    capabilities: [READ, EDIT, RUN_COMMANDS]
    timeout: "30s"
    completion_check:
      worker: CUSTOM
      instructions: ${JSON.stringify(CHECK_LINE)}
      capabilities: [READ]
      timeout: "30s"
    max_iterations: ${ITERATIONS + 5}
    on_iterations_exhausted: abort
`;

export async function measureSideBySide() {
  const roboppi = process.env.BENCH_ROBOPPI;
  if (roboppi === undefined || roboppi === "") {
    return skipped("set BENCH_ROBOPPI to a roboppi executable to measure closer beside it");
  }
  if (!existsSync(roboppi)) return skipped(`BENCH_ROBOPPI names no file: ${roboppi}`);
  const closer = await makeFixtureRepo({
    files: { "README.md": "# loop20\n" },
    agents: [LOOP20_AGENT],
  });
  const place = mkdtempSync(join(tmpdir(), "side-by-side-"));
  try {
    const workspace = makeRoboppiWorkspace(place);
    const workflow = join(place, "loop20.yaml");
    writeFileSync(workflow, WORKFLOW);
    const rss = /** @type {Record<string, number[]>} */ ({});
    const measured = (name, dir, command) => async () => {
      rmSync(join(dir, "counter"), { force: true });
      rmSync(join(dir, "context"), { recursive: true, force: true }); // roboppi's state
      const rssFile = join(place, "rss");
      const timed = existsSync(TIME) ? [TIME, "-f", "%M", "-o", rssFile] : [];
      const [file = "", ...args] = [...timed, ...command];
      const ms = await timeProcess(file, args, { cwd: dir });
      const counter = Number(readFileSync(join(dir, "counter"), "utf8"));
      if (counter !== ITERATIONS) throw new Error(`${name} ended after ${counter} iterations`);
      if (timed.length > 0) {
        const kilobytes = Number(readFileSync(rssFile, "utf8").trim().split("\n").at(-1));
        rss[name] = [...(rss[name] ?? []), kilobytes * 1024];
      }
      return ms;
    };
    const closerRun = (sandbox) => {
      const command = [process.execPath, closerBin(), "run", "loop20", "--task", "count"];
      return [...command, "--sandbox", sandbox];
    };
    const roboppiRun = (...mode) => {
      const command = [roboppi, "workflow", workflow, "--workspace", workspace, "--no-tui"];
      return [...command, ...mode];
    };
    /** @type {Record<string, () => Promise<number>>} */
    const works = {
      closer: measured("closer", closer.dir, closerRun("off")),
      closerSandboxed: measured("closerSandboxed", closer.dir, closerRun("on")),
      roboppi: measured("roboppi", workspace, roboppiRun("--direct")),
      roboppiSupervised: measured("roboppiSupervised", workspace, roboppiRun()),
    };
    // Each run once before the timed ones; closer's sandbox where it cannot run is left out.
    const sandboxUnavailable = await works.closerSandboxed().then(
      () => undefined,
      (error) => String(error).split("\n").slice(0, 3).join(" "),
    );
    if (sandboxUnavailable !== undefined) delete works.closerSandboxed;
    for (const [name, work] of Object.entries(works)) if (name !== "closerSandboxed") await work();
    for (const name of Object.keys(rss)) rss[name] = [];
    const times = await interleave(works, ROUNDS);
    const ms = (name) => (times[name] === undefined ? null : round(median(times[name])));
    const over = (name) => (ms(name) === null ? null : round(ms(name) / ms("roboppi")));
    const peak = (name) => (rss[name] === undefined ? null : megabytes(median(rss[name])));
    return {
      sideBySideCloserMs: ms("closer"),
      sideBySideCloserSandboxMs: ms("closerSandboxed"),
      sideBySideRoboppiMs: ms("roboppi"),
      sideBySideRoboppiSupervisedMs: ms("roboppiSupervised"),
      sideBySideRatio: over("closer"),
      sideBySideSandboxRatio: over("closerSandboxed"),
      sideBySidePeakRssMb: {
        closer: peak("closer"),
        closerSandboxed: peak("closerSandboxed"),
        roboppi: peak("roboppi"),
        roboppiSupervised: peak("roboppiSupervised"),
      },
      sideBySidePeakRssRatio:
        peak("closer") === null || peak("roboppi") === null
          ? null
          : round(Math.max(peak("closer"), peak("closerSandboxed") ?? 0) / peak("roboppi")),
      ...(sandboxUnavailable === undefined
        ? {}
        : { sideBySideSandboxUnavailable: sandboxUnavailable }),
    };
  } finally {
    await closer.cleanup();
    rmSync(place, { recursive: true, force: true });
  }
}

/**
 * A git repository for roboppi's workflow, on a branch roboppi lets a workflow run on (it
 * refuses `main`, `master` and `release/*` unless told otherwise).
 * @param {string} place
 */
function makeRoboppiWorkspace(place) {
  const workspace = join(place, "workspace");
  const git = (...args) => execFileSync("git", args, { cwd: workspace, stdio: "ignore" });
  execFileSync("git", ["init", "--quiet", "--initial-branch=work", workspace]);
  writeFileSync(join(workspace, "README.md"), "# loop20\n");
  git("add", "README.md");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "start");
  return workspace;
}

/** @param {string} why */
function skipped(why) {
  return {
    sideBySideCloserMs: null,
    sideBySideCloserSandboxMs: null,
    sideBySideRoboppiMs: null,
    sideBySideRoboppiSupervisedMs: null,
    sideBySideRatio: null,
    sideBySideSandboxRatio: null,
    sideBySidePeakRssMb: null,
    sideBySidePeakRssRatio: null,
    sideBySideSkipped: why,
  };
}

// `BENCH_ROBOPPI=<roboppi> node bench/side-by-side.mjs` measures this part alone (after `npm run build`).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${JSON.stringify(await measureSideBySide())}\n`);
}
