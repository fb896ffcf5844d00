/**
 * A Node program of closer's own run as a child process it talks to over an IPC channel: the
 * host of the OS sandbox's library, which must work from a folder of its own
 * (docs/sandbox.md#library-host). The program is given as source, so it needs no file of its
 * own next to closer's bundle.
 */
import { spawn } from "node:child_process";

/** A child closer talks to by messages; it ends once the channel is closed. */
export interface NodeChild {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Closes the channel: the child ends on its own. */
  disconnect(): void;
  /** Resolves once the child has ended. */
  readonly exited: Promise<void>;
}

export interface NodeChildOptions {
  /** The program, an ES module. */
  readonly source: string;
  /** Its `process.argv` after the Node executable. */
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function startNodeChild(options: NodeChildOptions): NodeChild {
  const child = spawn(
    process.execPath,
    ["--input-type=module", "--eval", options.source, ...options.args],
    { cwd: options.cwd, env: options.env, stdio: ["ignore", "ignore", "inherit", "ipc"] },
  );
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  return {
    send(message) {
      if (child.connected) child.send(message as object);
    },
    onMessage(listener) {
      child.on("message", listener);
    },
    disconnect() {
      if (child.connected) child.disconnect();
    },
    exited,
  };
}
