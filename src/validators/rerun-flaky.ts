import type { ValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import {
  makeTreeFingerprintReader,
  type TreeFingerprintReader,
} from "../workspace/tree-fingerprint.js";
import { elapsedMs } from "./validator-outcome.js";

/** The tree's fingerprint; undefined when it cannot be read, and then no re-run counts. */
async function readFingerprint(
  readTreeFingerprint: TreeFingerprintReader,
  context: CheckContext,
): Promise<string | undefined> {
  try {
    return await readTreeFingerprint(context.cwd, context.signal);
  } catch {
    return undefined;
  }
}

/** A failure another run might not repeat: not the definition's fault, not a stopped run. */
function isRerunnable(outcome: ValidatorOutcome, context: CheckContext): boolean {
  return !outcome.valid && outcome.configError === undefined && !context.signal.aborted;
}

/**
 * Runs a check with `definition.reruns` re-runs of a failure
 * (docs/completion.md#flaky-checks). A re-run that passes counts only when
 * the working tree is the one the first run saw, before it and after the
 * pass: the pass is then the outcome, marked `flaky`. Otherwise the first
 * run's failure is the outcome. `durationMs` covers every run.
 */
export async function runWithReruns(
  definition: ValidatorDefinition,
  context: CheckContext,
  runOnce: () => Promise<ValidatorOutcome>,
): Promise<ValidatorOutcome> {
  if (definition.reruns === 0) return runOnce();
  const startedMs = performance.now();
  // One reader for the check's runs: git is asked for the tree's top once.
  const readTreeFingerprint = makeTreeFingerprintReader();
  const before = await readFingerprint(readTreeFingerprint, context);
  const first = await runOnce();
  if (before === undefined || !isRerunnable(first, context)) return first;
  const unchanged = async () => (await readFingerprint(readTreeFingerprint, context)) === before;
  for (let rerun = 1; rerun <= definition.reruns && (await unchanged()); rerun++) {
    const outcome = await runOnce();
    if (outcome.configError !== undefined || context.signal.aborted) return outcome;
    if (!outcome.valid) continue;
    if (!(await unchanged())) break;
    const flaky = { failures: rerun, reruns: rerun };
    return { ...outcome, durationMs: elapsedMs(startedMs), flaky };
  }
  return { ...first, durationMs: elapsedMs(startedMs) };
}
