#!/usr/bin/env node
/**
 * A protocol-faithful stand-in for the Claude Code executable. It speaks the
 * stream-json protocol the Claude Agent SDK uses (control requests, hook
 * callbacks, permission prompts, one `result` per user message) and the
 * `claude -p` print mode, answering from a script of turns instead of a model.
 *
 * Environment:
 *   FAKE_CLAUDE_SCRIPT      JSON file: an array of turns (or `{ "turns": [...] }`), consumed in order
 *                           across processes.
 *   FAKE_CLAUDE_STATE       state file (default `<script>.state.json`): next turn, known sessions.
 *   FAKE_CLAUDE_LOG         JSON-lines log of what each process received (default `<script>.log.jsonl`).
 *   FAKE_CLAUDE_RECORD_ENV  comma-separated variable names whose values are logged
 *                           (default `CLOSER_CHECK_ID`); the names of all variables are always logged.
 *
 * The turn format is documented (as TypeScript types) in `make-fake-claude.ts` next to this file.
 */
import { parseArguments, readOptions } from "./arguments.mjs";
import { makeLog } from "./log.mjs";
import { runPrintMode } from "./print-mode.mjs";
import { loadState } from "./state.mjs";
import { runStreamMode } from "./stream-mode.mjs";

const scriptPath = process.env.FAKE_CLAUDE_SCRIPT;
if (!scriptPath) {
  process.stderr.write("fake-claude: FAKE_CLAUDE_SCRIPT is not set\n");
  process.exit(2);
}

const parsed = parseArguments(process.argv.slice(2));
const options = readOptions(parsed);
const log = makeLog(process.env.FAKE_CLAUDE_LOG ?? `${scriptPath}.log.jsonl`);
const recordedNames = (process.env.FAKE_CLAUDE_RECORD_ENV ?? "CLOSER_CHECK_ID")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);

log({
  event: "start",
  pid: process.pid,
  argv: process.argv.slice(2),
  cwd: process.cwd(),
  options,
  env: Object.fromEntries(recordedNames.map((name) => [name, process.env[name] ?? null])),
  envKeys: Object.keys(process.env).sort(),
});

const state = loadState(scriptPath, process.env.FAKE_CLAUDE_STATE ?? `${scriptPath}.state.json`);

if (options.resume !== undefined && !state.hasSession(options.resume)) {
  // What Claude Code does for a resume id it has no transcript for.
  const message = `No conversation found with session ID: ${options.resume}`;
  process.stderr.write(`${message}\n`);
  log({ event: "exit", pid: process.pid, code: 1, reason: message });
  process.exit(1);
}

const context = { options, log, state, cwd: process.cwd() };
const exitCode =
  options.inputFormat === "stream-json"
    ? await runStreamMode(context)
    : await runPrintMode(context, parsed.positionals);
log({ event: "exit", pid: process.pid, code: exitCode });
process.exit(exitCode);
