/**
 * Loaded with `node --import`: counts the processes the process starts, by kind (`git status`,
 * `bash`, `sh`), and writes the counts as JSON where BENCH_SPAWN_FILE says, at exit. The bench
 * sets them beside its floor's (docs/performance.md#floor).
 */
import childProcess from "node:child_process";
import { writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { kindOf } from "./process-kind.mjs";

const target = process.env.BENCH_SPAWN_FILE;
if (target !== undefined) {
  /** @type {Record<string, number>} */
  const counts = {};
  const spawn = childProcess.spawn;
  childProcess.spawn = function countedSpawn(file, args, ...rest) {
    const kind = kindOf(String(file), Array.isArray(args) ? args.map(String) : []);
    counts[kind] = (counts[kind] ?? 0) + 1;
    return spawn.call(this, file, args, ...rest);
  };
  syncBuiltinESMExports();
  process.on("exit", () => writeFileSync(target, JSON.stringify(counts)));
}
