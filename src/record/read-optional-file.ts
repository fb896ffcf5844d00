import { constants, lstatSync, statSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import type { FileSnapshot } from "../ports/files.js";

/** The decision file's size cap (docs/completion.md#decision-file). */
export const DECISION_FILE_MAX_BYTES = 64 * 1024;

/**
 * Reads a file the run may or may not find (the agent's system prompt):
 * undefined when it does not exist. The usual case for a decision file is
 * that it does not, which costs one `stat`.
 */
export async function readOptionalFile(path: string): Promise<FileSnapshot | undefined> {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile()) return undefined;
  try {
    return { text: await readFile(path, "utf8"), modifiedAtMs: stats.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Reads a file the model writes (the decision file, docs/completion.md#decision-file)
 * without trusting it: a symbolic link is never followed, only a regular file
 * is opened (a FIFO would block the run), and no more than `maxBytes` are ever
 * read. Anything else at the path is a snapshot that says why it was refused.
 */
export async function readUntrustedFile(
  path: string,
  maxBytes: number = DECISION_FILE_MAX_BYTES,
): Promise<FileSnapshot | undefined> {
  const entry = lstatSync(path, { throwIfNoEntry: false });
  if (entry === undefined) return undefined;
  if (!entry.isFile()) return refused(entry.mtimeMs, notRegular(kindOf(entry)));
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NOFOLLOW: a file swapped for a link since the lstat is refused, not followed.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") return refused(entry.mtimeMs, notRegular("a symbolic link"));
    return refused(entry.mtimeMs, {
      reason: "decision-file-unreadable",
      detail: `the decision file could not be read (${code ?? (error as Error).message})`,
    });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return refused(stats.mtimeMs, notRegular(kindOf(stats)));
    if (stats.size > maxBytes) {
      return refused(stats.mtimeMs, {
        reason: "decision-file-too-large",
        detail: `the decision file is ${stats.size} bytes, over the cap of ${maxBytes} bytes; write only the decision JSON`,
      });
    }
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) {
      return refused(stats.mtimeMs, {
        reason: "decision-file-too-large",
        detail: `the decision file grew past the cap of ${maxBytes} bytes while it was read`,
      });
    }
    return { text: buffer.subarray(0, bytesRead).toString("utf8"), modifiedAtMs: stats.mtimeMs };
  } finally {
    await handle.close();
  }
}

function refused(modifiedAtMs: number, why: FileSnapshot["refused"]): FileSnapshot {
  return { text: "", modifiedAtMs, ...(why === undefined ? {} : { refused: why }) };
}

function notRegular(kind: string): { reason: string; detail: string } {
  return {
    reason: "decision-file-not-regular",
    detail: `the decision file is ${kind}, not a regular file; closer reads only a regular file written at that path`,
  };
}

interface EntryKind {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}

function kindOf(entry: EntryKind): string {
  if (entry.isSymbolicLink()) return "a symbolic link";
  if (entry.isDirectory()) return "a folder";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  return "a device or other special file";
}
