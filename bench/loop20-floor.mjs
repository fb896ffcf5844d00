/**
 * The floor of the 20-iteration loop (loop20.mjs): a bare Node process that
 * makes the same 40 spawns, one after another: the model's line with the
 * prompt on stdin, then the check, in the same folder.
 * Usage: node loop20-floor.mjs <dir> <prompt file> <model line> <check line> <iterations>
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";

const [dir, promptFile, modelLine, checkLine, iterations] = process.argv.slice(2);

/**
 * @param {string} file
 * @param {string[]} args
 * @param {number | "ignore"} stdin
 */
function run(file, args, stdin) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: dir, stdio: [stdin, "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", resolve);
  });
}

for (let iteration = 0; iteration < Number(iterations); iteration += 1) {
  const prompt = openSync(promptFile, "r");
  await run("bash", ["-c", modelLine], prompt);
  closeSync(prompt);
  await run("/bin/sh", ["-c", checkLine], "ignore");
}
