import { stopSandbox } from "../sandbox/sandbox-runtime.js";
import { runCli } from "./program.js";

// `closer list | head` closes stdout early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2)).then(async (code) => {
  process.exitCode = code;
  await stopSandbox();
  // The command is done and has awaited its work: once what it printed is out,
  // the process ends without tearing its heap down (docs/cli.md#start-up).
  await flushed(process.stdout);
  await flushed(process.stderr);
  process.exit();
});

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write("", () => resolve());
  });
}
