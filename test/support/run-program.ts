import { spawn } from "node:child_process";

/** How a program ended and what it wrote. */
export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program with exactly `env` (nothing of this process's own), as a user's shell would
 * run it, and collects what it writes; a program killed by a signal ends with code 128.
 */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>> },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}
