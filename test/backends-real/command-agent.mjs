// A `command` backend agent for the conformance baseline: plays turn N of a
// turns file (`[{commands, answer}]`), running its commands in its folder
// and printing its answer. The turn counter is kept next to the turns file.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const turnsFile = process.argv[2];
const counterFile = `${turnsFile}.next`;
for await (const _chunk of process.stdin) {
  // The prompt is not needed: the turns are scripted.
}
const next = existsSync(counterFile) ? Number(readFileSync(counterFile, "utf8")) : 0;
writeFileSync(counterFile, String(next + 1));
const turn = JSON.parse(readFileSync(turnsFile, "utf8"))[next];
for (const command of turn.commands) execSync(command, { stdio: "ignore", shell: "/bin/bash" });
process.stdout.write(`${turn.answer}\n`);
