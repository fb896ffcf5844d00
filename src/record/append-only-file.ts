import {
  closeSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";

/** A file of lines written only at its end, through one descriptor kept open between writes. */
export interface AppendOnlyFile {
  /** Appends the whole text in one call; it is in the file system when the call returns. */
  append(text: string): void;
  /** Empties the file (its lines are spent); the next `append` writes its first line. */
  empty(): void;
  /** Closes the descriptor; a later `append` opens the file again. */
  close(): void;
  /**
   * Closes the descriptor when `path` no longer names the file it holds (removed,
   * or replaced by another): the next `append` writes to what is there now.
   */
  closeIfReplaced(): void;
}

/**
 * Opens `path` for appending on the first write and keeps it open: an event
 * costs one `write`, not an open, a write and a close. The file is opened with
 * O_APPEND, so every write lands at its end, after whatever a resumed run's
 * earlier process left there; a last line that process left torn is ended
 * first, so the new lines stay whole. Nothing is synced to the disk.
 */
export function openAppendOnly(path: string): AppendOnlyFile {
  let descriptor: number | undefined;
  return {
    append(text) {
      descriptor ??= openEndingLastLine(path);
      writeWhole(descriptor, text);
    },
    empty() {
      if (descriptor !== undefined) ftruncateSync(descriptor, 0);
      else if (statSync(path, { throwIfNoEntry: false }) !== undefined) truncateSync(path, 0);
    },
    close() {
      if (descriptor === undefined) return;
      const open = descriptor;
      descriptor = undefined;
      closeSync(open);
    },
    closeIfReplaced() {
      if (descriptor === undefined) return;
      const held = fstatSync(descriptor);
      const named = statSync(path, { throwIfNoEntry: false });
      if (named === undefined || named.ino !== held.ino || named.dev !== held.dev) this.close();
    },
  };
}

function openEndingLastLine(path: string): number {
  const descriptor = openSync(path, "a+");
  const { size } = fstatSync(descriptor);
  if (size === 0) return descriptor;
  const last = Buffer.alloc(1);
  readSync(descriptor, last, 0, 1, size - 1);
  if (last[0] !== 0x0a) writeWhole(descriptor, "\n");
  return descriptor;
}

function writeWhole(descriptor: number, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  // A regular file takes the whole buffer at once; the loop only guards a short write.
  while (written < bytes.length) {
    written += writeSync(descriptor, bytes, written, bytes.length - written);
  }
}
