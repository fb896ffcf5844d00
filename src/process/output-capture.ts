import { StringDecoder } from "node:string_decoder";
import { cutMarker } from "../bounded-text.js";

/**
 * The output of one stream of a command, kept as raw chunks: the first half
 * of `maxBytes` whole, and of the rest only the last half of `maxBytes` —
 * what comes between is dropped and only counted (docs/record.md#bounded-record).
 * A test runner prints its failures last, so the tail is what the checks'
 * extractors need most.
 *
 * It is decoded only when asked: as one text at the end (head, a line with
 * the cut marker, tail), or as lines while it grows — each reader of
 * `lines()` starts from the first byte, so a reader that starts late misses
 * nothing that is still kept, and a command nobody reads line by line pays
 * nothing for it.
 */
export class OutputCapture {
  readonly #headBytes: number;
  readonly #tailBytes: number;
  /** Every chunk in order; a dropped one is `undefined` (its place keeps readers in step). */
  readonly #chunks: (Buffer | undefined)[] = [];
  #keptHead = 0;
  #keptTail = 0;
  /** Index of the first chunk of the tail (chunks before it are head or dropped). */
  #tailStart = 0;
  #firstKeptTail = 0;
  #droppedBytes = 0;
  #ended = false;
  #waiting: (() => void)[] = [];

  constructor(maxBytes: number) {
    this.#headBytes = Math.ceil(maxBytes / 2);
    this.#tailBytes = maxBytes - this.#headBytes;
  }

  /** Bytes that came but are no longer kept. */
  get droppedBytes(): number {
    return this.#droppedBytes;
  }

  add(chunk: Buffer): void {
    let rest = chunk;
    const headRoom = this.#headBytes - this.#keptHead;
    if (headRoom > 0) {
      const head = rest.length > headRoom ? rest.subarray(0, headRoom) : rest;
      this.#chunks.push(head);
      this.#keptHead += head.length;
      this.#tailStart = this.#chunks.length;
      this.#firstKeptTail = this.#tailStart;
      rest = rest.subarray(head.length);
    }
    if (rest.length > 0) this.#addToTail(rest);
    this.#wake();
  }

  #addToTail(chunk: Buffer): void {
    if (this.#tailBytes === 0) {
      this.#droppedBytes += chunk.length;
      return;
    }
    this.#chunks.push(chunk);
    this.#keptTail += chunk.length;
    while (this.#keptTail > this.#tailBytes) {
      const oldest = this.#chunks[this.#firstKeptTail] as Buffer;
      const excess = this.#keptTail - this.#tailBytes;
      if (oldest.length <= excess) {
        this.#chunks[this.#firstKeptTail] = undefined;
        this.#firstKeptTail += 1;
        this.#keptTail -= oldest.length;
        this.#droppedBytes += oldest.length;
      } else {
        // Copied, so the dropped part of a large chunk does not stay in memory.
        this.#chunks[this.#firstKeptTail] = Buffer.from(oldest.subarray(excess));
        this.#keptTail -= excess;
        this.#droppedBytes += excess;
      }
    }
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Everything kept, decoded as UTF-8; a cut is a line of its own saying how much went. */
  text(): string {
    const head = this.#chunks.slice(0, this.#tailStart) as Buffer[];
    const tail = this.#chunks.slice(this.#firstKeptTail) as Buffer[];
    if (this.#droppedBytes === 0) {
      const all = [...head, ...tail];
      if (all.length === 1) return (all[0] as Buffer).toString("utf8");
      return Buffer.concat(all).toString("utf8");
    }
    const headText = Buffer.concat(head)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    const tailText = Buffer.concat(tail)
      .toString("utf8")
      .replace(/^\uFFFD/, "");
    return `${headText}\n${cutMarker(this.#droppedBytes)}\n${tailText}`;
  }

  /** The lines (without `\n` / `\r\n`) as they come; the last one may lack its line end. */
  lines(): AsyncIterable<string> {
    return { [Symbol.asyncIterator]: () => this.#readLines() };
  }

  async *#readLines(): AsyncGenerator<string> {
    let decoder = new StringDecoder("utf8");
    let partial = "";
    let next = 0;
    for (;;) {
      if (next < this.#chunks.length) {
        const chunk = this.#chunks[next];
        if (chunk === undefined) {
          // The reader fell behind what was dropped: the line it was in is cut, like the text.
          next = this.#firstKeptTail;
          partial += decoder.end();
          if (partial !== "") yield partial;
          yield cutMarker(this.#droppedBytes);
          decoder = new StringDecoder("utf8");
          partial = "";
          continue;
        }
        next += 1;
        const parts = (partial + decoder.write(chunk)).split("\n");
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
