import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FakeGithub } from "../../doubles/fake-github/index.js";
import { TOKEN } from "../../run/support/issue-repo.js";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** A `closer` process that runs until stopped: `closer worker`, `closer watch`, `closer serve`. */
export interface CloserProcess {
  readonly child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with its exit code (or the signal that ended it). */
  readonly exited: Promise<number | string>;
}

/** Starts `closer <args>` as its own process, with the fake GitHub's URL and token; its stdout is not kept. */
export function startCloser(
  args: readonly string[],
  options: {
    readonly github: FakeGithub;
    readonly home: string;
    readonly env?: Readonly<Record<string, string>>;
  },
): CloserProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], {
    env: {
      ...process.env,
      HOME: options.home,
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: options.github.url,
      NO_COLOR: "1",
      ...options.env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return { child, stderr: () => stderr, exited };
}
