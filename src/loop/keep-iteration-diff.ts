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
  const { readDiffSinceKept, writeWorkTree } = run.ports.integrity;
  const { saveDiff } = run.ports.record;
  if (readDiffSinceKept === undefined || writeWorkTree === undefined || saveDiff === undefined)
    return;
  // Outside git there is no tree to end at, and no diff.
  const end: string | DiffRead | undefined = tree ?? (await writeWorkTree().catch(errorRead));
  if (end === undefined) return;
  const keep = async () => {
    const read = typeof end === "string" ? await readDiffSinceKept(end).catch(errorRead) : end;
    const diff = textOf(read);
    if (diff !== undefined) await saveDiff(iteration, diff).catch(() => undefined);
  };
  run.diffKept = (run.diffKept ?? Promise.resolve()).then(keep);
}

/** Waits for the last iteration's diff to be kept: nothing of the run outlives its loop. */
export async function iterationDiffsKept(run: RunContext): Promise<void> {
  await run.diffKept?.catch(() => undefined); // a diff never ends the run
}

function errorRead(error: unknown): DiffRead {
  return { kind: "error", message: firstLine(error) };
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
