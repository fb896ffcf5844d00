import { StringDecoder } from "node:string_decoder";

/**
 * The output of one stream of a command, kept whole (up to `maxBytes`; the
 * rest is dropped) as raw chunks. It is decoded only when asked: as one text
 * at the end, or as lines while it grows — each reader of `lines()` starts
 * from the first byte, so a reader that starts late misses nothing, and a
 * command nobody reads line by line pays nothing for it.
 */
export class OutputCapture {
  readonly #maxBytes: number;
  readonly #chunks: Buffer[] = [];
  #sizeBytes = 0;
  #ended = false;
  #waiting: (() => void)[] = [];

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  add(chunk: Buffer): void {
    const room = this.#maxBytes - this.#sizeBytes;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#sizeBytes += kept.length;
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Everything kept so far, decoded as UTF-8. */
  text(): string {
    if (this.#chunks.length === 1) return (this.#chunks[0] as Buffer).toString("utf8");
    return Buffer.concat(this.#chunks, this.#sizeBytes).toString("utf8");
  }

  /** The lines (without `\n` / `\r\n`) as they come; the last one may lack its line end. */
  lines(): AsyncIterable<string> {
    return { [Symbol.asyncIterator]: () => this.#readLines() };
  }

  async *#readLines(): AsyncGenerator<string> {
    const decoder = new StringDecoder("utf8");
    let partial = "";
    let next = 0;
    for (;;) {
      if (next < this.#chunks.length) {
        const parts = (partial + decoder.write(this.#chunks[next++] as Buffer)).split("\n");
        partial = parts.pop() ?? "";
        for (const part of parts) yield part.endsWith("\r") ? part.slice(0, -1) : part;
      } else if (this.#ended) {
        partial += decoder.end();
        if (partial !== "") yield partial;
        return;
      } else {
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
      }
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
