/**
 * `npm run bench`: every figure of docs/performance.md, taken side by side in
 * one run on the compiled build, printed as one JSON object with the targets
 * and whether each is met. Progress goes to stderr.
 */
import { measureFirstQuery } from "./first-query.mjs";
import { measureLoopOverhead } from "./loop-overhead.mjs";
import { measureLoop20 } from "./loop20.mjs";
import { measureQueue } from "./queue.mjs";
import { measureSideBySide } from "./side-by-side.mjs";
import { measureStartup } from "./startup.mjs";
import { measureValidationPhase } from "./validation-phase.mjs";
import { measureVerdictPhase } from "./verdict-phase.mjs";

/**
 * Upper bounds (docs/performance.md#targets). A figure printed without one (the sandboxed run's
 * time, the sandbox's cost per check, the queue's) is there to be read beside them. A figure
 * made of several (by kind, by program) meets its bound when each of them does.
 */
const TARGETS = {
  startupRatio: 2.0,
  loop20Ratio: 1.5,
  loop20PeakRssMb: 80,
  loop20SandboxPeakRssMb: 80,
  ratio: 1.15,
  validationPhaseRatio: 1.1,
  verdictPhaseAddedMs: 1000,
  peakRssMb: 100,
  sandboxProcessAddedMs: 10,
  sideBySideRatio: 0.7,
  sideBySideSandboxRatio: 1.0,
  sideBySidePeakRssRatio: 1.0,
};

/**
 * Figures whose target bounds one way of measuring them: a sandboxed process's cost is that of
 * joining a held sandbox (docs/sandbox.md#cost), not of the wrap a machine that cannot join pays.
 */
const MEASURED_WHEN = {
  sandboxProcessAddedMs: (figures) => figures.sandboxHeld?.joined === true,
};

/**
 * Whether `value` is within `bound`: a number, or an object of them (every one within); null
 * where a part of it could not be measured.
 * @param {unknown} value
 * @param {number} bound
 * @returns {boolean | null}
 */
function within(value, bound) {
  if (typeof value === "number") return value <= bound;
  if (value === null || typeof value !== "object") return null;
  const parts = Object.values(value).map((part) => within(part, bound));
  return parts.includes(null) ? null : parts.every(Boolean);
}

// The loop's overhead before the parts that run in this process with more memory (10,000
// files): its peak RSS is this process's, and must be its own.
const parts = [
  ["start-up", measureStartup],
  ["20-iteration run", measureLoop20],
  ["loop overhead and sandbox cost", measureLoopOverhead],
  ["validation phase", measureValidationPhase],
  ["verdict phase on 10,000 files", measureVerdictPhase],
  ["first query behind a 20 s test suite", measureFirstQuery],
  ["queue: 20 jobs through 1 and 4 workers, a label to the first query", measureQueue],
  ["beside roboppi (where BENCH_ROBOPPI names it)", measureSideBySide],
];

const figures = {};
for (const [name, measure] of parts) {
  process.stderr.write(`bench: ${name}…\n`);
  Object.assign(figures, await measure());
}
// A figure the machine could not measure (the sandbox where it cannot run, or cannot be joined) is
// null: not met, not failed.
const met = Object.fromEntries(
  Object.entries(TARGETS).map(([name, bound]) => [
    name,
    (MEASURED_WHEN[name]?.(figures) ?? true) ? within(figures[name], bound) : null,
  ]),
);
process.stdout.write(`${JSON.stringify({ ...figures, targets: TARGETS, met })}\n`);
