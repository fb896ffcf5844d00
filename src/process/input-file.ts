/**
 * A command's input, given as a file rather than a pipe (docs/loop.md#command-input).
 *
 * Node's stdin pipe is a socket, and bash takes a socket on stdin for an ssh
 * session: unless it is nested (SHLVL), it then reads the user's ~/.bashrc even
 * when it runs a `-c` line — on some machines a tenth of a second or more per
 * query, and writes of its own the sandbox refuses. A regular file on stdin is
 * never taken so. The file is unlinked as soon as it is open: nothing is left
 * behind, and only the command's own stdin can read it.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Readable by its owner alone, and created new (never an existing file). */
const CREATE_FLAGS = "wx";
const OWNER_ONLY = 0o600;

/**
 * Writes `input` to a new temp file and returns a read-only descriptor of it,
 * positioned at its start; the file has no name left. The caller closes it
 * once the command has it (after spawning).
 */
export function openInputFile(input: string): number {
  const path = join(tmpdir(), `closer-input-${randomBytes(8).toString("hex")}`);
  try {
    writeFileSync(path, input, { flag: CREATE_FLAGS, mode: OWNER_ONLY });
  } catch (error) {
    // A part written before the disk was full is removed; a file of that name closer did not make is not.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(path, { force: true });
    // Without the cause's code: a missing temp folder is not a missing program.
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`could not write the command's input to ${tmpdir()}: ${cause}`);
  }
  try {
    return openSync(path, "r");
  } finally {
    unlinkSync(path);
  }
}

/** Closes a descriptor the parent no longer needs; a close that fails changes nothing for the command. */
export function closeInputFile(descriptor: number | undefined): void {
  if (descriptor === undefined) return;
  try {
    closeSync(descriptor);
  } catch {
    // Already closed: nothing to release.
  }
}
