/**
 * Start-up: the median wall of `closer --help` and of `closer validate
 * example` (the bundled example agent) beside a bare `node -e 0`, each a
 * fresh process, interleaved (docs/performance.md#start-up).
 */
import { fileURLToPath } from "node:url";
import { closerBin, interleave, median, round, timeProcess } from "./support.mjs";

const ROUNDS = 10;
const BIN = closerBin();
const EXAMPLE_REPO = fileURLToPath(new URL("../examples/example-repo", import.meta.url));

export async function measureStartup() {
  const node = process.execPath;
  const times = await interleave(
    {
      node: () => timeProcess(node, ["-e", "0"]),
      help: () => timeProcess(node, [BIN, "--help"]),
      validate: () => timeProcess(node, [BIN, "validate", "example"], { cwd: EXAMPLE_REPO }),
    },
    ROUNDS,
  );
  const nodeMs = median(times.node);
  const helpMs = median(times.help);
  const validateMs = median(times.validate);
  return {
    startupNodeMs: round(nodeMs),
    startupHelpMs: round(helpMs),
    startupValidateMs: round(validateMs),
    startupHelpRatio: round(helpMs / nodeMs),
    startupValidateRatio: round(validateMs / nodeMs),
    // The slower of the two commands decides.
    startupRatio: round(Math.max(helpMs, validateMs) / nodeMs),
  };
}
