import { join } from "node:path";
import { RUN_FILES, readRunState, writeFileAtomic } from "./run-record.js";
import type { RunState } from "./run-state.js";
import { makeRedactor, stringifyRedacted } from "./secret-redactor.js";

export interface UpdateRunStateOptions {
  /** The environment whose secrets never reach the record; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Time of the change (`updatedAt`); defaults to Date.now. */
  readonly now?: () => number;
}

/**
 * Rewrites run.json of a run that is no longer in the loop (the steps after
 * its end: side effects, the worktree), atomically and with secrets redacted.
 * Returns the state written.
 */
export async function updateRunState(
  runDir: string,
  change: (state: RunState) => RunState,
  options: UpdateRunStateOptions = {},
): Promise<RunState> {
  const state = await readRunState(runDir);
  const next: RunState = {
    ...change(state),
    updatedAt: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const redact = makeRedactor(options.env ?? process.env);
  await writeFileAtomic(join(runDir, RUN_FILES.state), `${stringifyRedacted(next, redact, 2)}\n`);
  return next;
}

/** Adds a side-effect key to run.json (once), so a resumed run never repeats the effect. */
export function recordSideEffect(
  runDir: string,
  effectKey: string,
  options: UpdateRunStateOptions = {},
): Promise<RunState> {
  return updateRunState(
    runDir,
    (state) =>
      state.sideEffects.includes(effectKey)
        ? state
        : { ...state, sideEffects: [...state.sideEffects, effectKey] },
    options,
  );
}

/** Keeps what the verifying iteration reported, for the side effects after completion. */
export function recordCompletion(
  runDir: string,
  completion: NonNullable<RunState["completion"]>,
  options: UpdateRunStateOptions = {},
): Promise<RunState> {
  return updateRunState(runDir, (state) => ({ ...state, completion }), options);
}
