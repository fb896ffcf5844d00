import { StringDecoder } from "node:string_decoder";

/**
 * Lines of a readable stream as an async iterable. It listens from the moment
 * it is made, so a consumer that starts late misses nothing, and it never
 * pauses or destroys the stream (the full output is captured elsewhere too).
 * Lines come without their `\n` / `\r\n`.
 */
export function makeLineIterable(stream: NodeJS.ReadableStream | null): AsyncIterable<string> {
  const lines: string[] = [];
  let ended = stream === null;
  let wake: (() => void) | undefined;
  const decoder = new StringDecoder("utf8");
  let partial = "";

  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const push = (text: string) => {
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    for (const part of parts) lines.push(part.endsWith("\r") ? part.slice(0, -1) : part);
    notify();
  };
  const finish = () => {
    if (ended) return;
    push(decoder.end());
    if (partial !== "") lines.push(partial);
    partial = "";
    ended = true;
    notify();
  };

  stream?.on("data", (chunk: Buffer | string) => {
    push(typeof chunk === "string" ? chunk : decoder.write(chunk));
  });
  stream?.once("end", finish);
  stream?.once("close", finish);
  stream?.once("error", finish);

  return {
    async *[Symbol.asyncIterator]() {
      let index = 0;
      while (true) {
        if (index < lines.length) {
          yield lines[index++] as string;
        } else if (ended) {
          return;
        } else {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      }
    },
  };
}
