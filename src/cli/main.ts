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
});
