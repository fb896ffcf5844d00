/**
 * `npm run bench`: every figure of docs/performance.md, taken side by side in
 * one run on the compiled build, printed as one JSON object with the targets
 * and whether each is met. Progress goes to stderr.
 */
import { measureLoopOverhead } from "./loop-overhead.mjs";
import { measureLoop20 } from "./loop20.mjs";
import { measureQueue } from "./queue.mjs";
import { measureStartup } from "./startup.mjs";
import { measureValidationPhase } from "./validation-phase.mjs";
import { measureVerdictPhase } from "./verdict-phase.mjs";

/** Upper bounds (docs/performance.md#targets). */
const TARGETS = {
  startupRatio: 2.0,
  loop20Ratio: 1.5,
  loop20PeakRssMb: 80,
  ratio: 1.15,
  validationPhaseRatio: 1.1,
  verdictPhaseAddedMs: 1000,
  peakRssMb: 100,
};

const parts = [
  ["start-up", measureStartup],
  ["20-iteration run", measureLoop20],
  ["validation phase", measureValidationPhase],
  ["verdict phase on 10,000 files", measureVerdictPhase],
  ["loop overhead and sandbox cost", measureLoopOverhead],
  ["queue: 20 jobs through 1 and 4 workers", measureQueue],
];

const figures = {};
for (const [name, measure] of parts) {
  process.stderr.write(`bench: ${name}…\n`);
  Object.assign(figures, await measure());
}
const met = Object.fromEntries(
  Object.entries(TARGETS).map(([name, bound]) => [name, figures[name] <= bound]),
);
process.stdout.write(`${JSON.stringify({ ...figures, targets: TARGETS, met })}\n`);
