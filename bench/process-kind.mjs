import { basename } from "node:path";

/**
 * A process's kind, as the bench counts processes (docs/performance.md#floor): git and its
 * subcommand (its `-c name=value` settings skipped), else the program's name.
 * @param {string} file
 * @param {readonly string[]} args
 */
export function kindOf(file, args) {
  const program = basename(file);
  if (program !== "git") return program;
  let index = 0;
  while (args[index] === "-c") index += 2;
  return `git ${args[index] ?? ""}`;
}
