/**
 * What each iteration changed in the work tree, kept in the record for the report
 * (docs/record.md#diffs). Never a reason for the run to stop: a tree git cannot read, or a diff
 * the record cannot write, leaves a note or nothing, and the loop goes on.
 */
import type { TreeDiff } from "../ports/loop-ports.js";
import type { RunContext } from "./run-context.js";

/** Keeps the tree the first iteration of this process starts from; later ones start where the last ended. */
export async function keepIterationStart(run: RunContext): Promise<void> {
  await run.ports.integrity.keepTree?.().catch(() => undefined);
}

/**
 * The end of an iteration's diff: a tree of the work written already, why none could be, or
 * none (outside git).
 */
type DiffEnd =
  | { readonly tree: string }
  | { readonly unreadable: string }
  | { readonly outsideGit: true };

type DiffRead = TreeDiff | { readonly kind: "error"; readonly message: string };

/**
 * Keeps the diff from the tree the iteration started from to the tree it ends with: `tree` when
 * one was written of it already (the clean room's), else one written now, before the loop goes
 * on. Two trees already written are objects the model's edits cannot reach, so they are compared
 * and the diff kept beside the next query, one diff after the other.
 */
export async function keepIterationDiff(
  run: RunContext,
  iteration: number,
  tree?: string,
): Promise<void> {
  const { integrity, record } = run.ports;
  if (integrity.readDiffSinceKept === undefined || record.saveDiff === undefined) return;
  const end = tree === undefined ? await writeEnd(run) : { tree };
  const kept = (run.diffKept ?? Promise.resolve()).then(() => keepDiff(run, iteration, end));
  run.diffKept = kept;
  if (end === undefined) await kept; // no tree could be written ahead: the diff writes it, now
}

/** Waits for the last iteration's diff to be kept: nothing of the run outlives its loop. */
export async function iterationDiffsKept(run: RunContext): Promise<void> {
  await run.diffKept?.catch(() => undefined); // a diff never ends the run
}

/** The work's tree, written now; undefined where the probe cannot write one ahead of its diff. */
async function writeEnd(run: RunContext): Promise<DiffEnd | undefined> {
  const write = run.ports.integrity.writeWorkTree;
  if (write === undefined) return undefined;
  return write().then(
    (tree): DiffEnd => (tree === undefined ? { outsideGit: true } : { tree }),
    (error: unknown) => ({ unreadable: firstLine(error) }),
  );
}

async function keepDiff(
  run: RunContext,
  iteration: number,
  end: DiffEnd | undefined,
): Promise<void> {
  const { integrity, record } = run.ports;
  if (integrity.readDiffSinceKept === undefined || record.saveDiff === undefined) return;
  if (end !== undefined && "outsideGit" in end) return;
  const read: DiffRead =
    end !== undefined && "unreadable" in end
      ? { kind: "error", message: end.unreadable }
      : await integrity
          .readDiffSinceKept(end?.tree)
          .catch((error: unknown) => ({ kind: "error", message: firstLine(error) }));
  const diff = textOf(read);
  if (diff !== undefined) await record.saveDiff(iteration, diff).catch(() => undefined);
}

/** The diff, or the note kept in its place; nothing outside git. */
function textOf(read: DiffRead): string | undefined {
  switch (read.kind) {
    case "diff":
      return read.diff;
    case "no-start":
      return "# The tree this iteration started from is not known: the run was resumed.\n";
    case "error":
      return `# The diff could not be read: ${read.message}\n`;
    case "no-git":
      return undefined;
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? "";
}
