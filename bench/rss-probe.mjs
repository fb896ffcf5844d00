/** Loaded with `node --import`: writes the process's peak RSS (bytes) where BENCH_RSS_FILE says, at exit. */
import { writeFileSync } from "node:fs";

const target = process.env.BENCH_RSS_FILE;
if (target !== undefined) {
  process.on("exit", () => writeFileSync(target, String(process.resourceUsage().maxRSS * 1024)));
}
