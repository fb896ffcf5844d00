/**
 * Texts kept within a size: the head and the tail, with a marker saying how
 * much was cut between them (docs/record.md#bounded-record).
 */

/** `49.7 MB`, `812.3 kB`, `96 bytes`: a byte count as a person reads it. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** What stands where bytes were cut: `…[cut 49.7 MB]…`, or with where the whole text went. */
export function cutMarker(cutBytes: number, wholeIn?: string): string {
  const where = wholeIn === undefined ? "" : `; whole in ${wholeIn}`;
  return `…[cut ${formatBytes(cutBytes)}${where}]…`;
}

/** Bytes of a text in UTF-8, without encoding it when its length alone settles the question. */
function fitsIn(text: string, maxBytes: number): boolean {
  if (text.length * 3 <= maxBytes) return true;
  if (text.length > maxBytes) return false;
  return Buffer.byteLength(text, "utf8") <= maxBytes;
}

/**
 * The text itself when it fits in `maxBytes` (UTF-8); else its first and last
 * `maxBytes / 2` bytes around a cut marker. A character split by the cut is dropped.
 */
export function cutText(text: string, maxBytes: number, wholeIn?: string): string {
  if (fitsIn(text, maxBytes)) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  const half = Math.max(0, Math.floor(maxBytes / 2));
  const head = bytes
    .subarray(0, half)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const tail = bytes
    .subarray(bytes.length - half)
    .toString("utf8")
    .replace(/^\uFFFD/, "");
  return `${head}${cutMarker(bytes.length - 2 * half, wholeIn)}${tail}`;
}
