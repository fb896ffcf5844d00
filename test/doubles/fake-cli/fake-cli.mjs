/**
 * Protocol-faithful stand-ins for the agent CLIs closer drives: `claude -p`,
 * `codex exec` and `opencode run`, plus `agent-command`, a generic agent for
 * the command backend (answer on stdout, failures as text on stderr with exit
 * 1). Each executable in this folder is a two-line loader that calls
 * `main(<cli name>)`.
 *
 * Scripting (environment):
 *   FAKE_CLI_SCRIPT  path of a JSON file `{ "turns": [Turn, ...] }`
 *   FAKE_CLI_STATE   path of a counter file; each process takes the next turn
 *                    (absent → always turn 0)
 *   FAKE_CLI_LOG     path of a JSON-lines file; each process appends one line
 *                    `{cli, argv, stdin, cwd, pid, env, turn, schema?, childPid?}`
 *   FAKE_CLI_LOG_ENV comma-separated extra variable names to copy into `env`
 *                    (every `CLOSER_*` variable is always copied)
 *
 * Turn (every field optional):
 *   text             final assistant text (default: the structured output as JSON, or "done")
 *   structuredOutput object answered when the CLI was asked for a schema
 *                    (claude `--json-schema`, codex `--output-schema`); opencode has
 *                    no schema flag and prints it as its text instead
 *   files            { "relative/path": "content" | null } written in the working
 *                    directory before answering (null deletes)
 *   commands         shell commands the "model" runs (through /bin/sh, in the working
 *                    directory, with the CLI's environment) before answering; each
 *                    one's {command, exitCode, stderr} goes to the log as `commands`
 *   tools            tool names the turn reports using, in order
 *   sessionId        session/thread id to report (default: the resumed id, else a new one)
 *   costUsd          cost to report (claude, opencode)
 *   usage            { inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens }
 *   delayMs          wait before answering
 *   fail             "rate_limit" | "overloaded" | "server_error" | "connection_reset" |
 *                    "connection_refused" | "auth" | "max_turns" | "session_expired" |
 *                    "crash" | "hang"
 *                    server_error: the API answers 503; connection_reset and
 *                    connection_refused: the connection to the API is reset
 *                    (ECONNRESET) or refused (ECONNREFUSED); each as that CLI
 *                    reports it once its own retries are spent
 *                    hang: starts a grandchild in the same process group, logs its
 *                    pid as `childPid`, and never exits
 *   callModel        true, or { retries?, url? }: codex and opencode call the model
 *                    endpoint of their own configuration first, as the real CLIs do
 *                    (provider-call.mjs); the outcome goes to the log as `modelCall`,
 *                    and a call that failed ends the process as the CLI would
 *   retryAfterSeconds  with rate_limit: the reset time the CLI reports; with
 *                    server_error (opencode): the Retry-After header
 *   exitCode, stderr  override what the process exits with / writes to stderr
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { answerClaude } from "./claude-output.mjs";
import { answerCodex } from "./codex-output.mjs";
import { crash, finalText } from "./fake-cli-output.mjs";
import { answerOpencode } from "./opencode-output.mjs";
import { callModel } from "./provider-call.mjs";

export async function main(cli) {
  const argv = process.argv.slice(2);
  const stdin = await readStdin();
  const { turn, index } = takeTurn();
  const options = parseOptions(cli, argv);
  const logEntry = { cli, argv, stdin, cwd: process.cwd(), pid: process.pid, turn: index };
  logEntry.env = selectedEnv();
  if (options.schemaFile) logEntry.schema = readJsonOrText(options.schemaFile);
  if (options.schemaText) logEntry.schema = readJsonOrText(undefined, options.schemaText);
  if (turn.commands) logEntry.commands = turn.commands.map(runShellCommand);
  if (turn.fail === "hang") logEntry.childPid = startGrandchild();
  if (turn.callModel) logEntry.modelCall = await callModel(cli, turn.callModel, options);
  appendLog(logEntry);
  if (logEntry.modelCall?.failed) {
    process.stderr.write(`${logEntry.modelCall.failed}\n`);
    process.exitCode = 1;
    return;
  }

  if (turn.delayMs) await sleep(turn.delayMs);
  if (turn.fail === "hang") return hangForever();
  applyFiles(turn.files);

  const answer = {
    claude: answerClaude,
    codex: answerCodex,
    opencode: answerOpencode,
    "agent-command": answerCommand,
  }[cli];
  const exitCode = answer(turn, options);
  if (turn.stderr) process.stderr.write(turn.stderr);
  process.exitCode = turn.exitCode ?? exitCode;
}

// ── a generic agent command: prompt on stdin, answer on stdout ────────────

function answerCommand(turn) {
  const failures = {
    rate_limit: "Error: 429 Too Many Requests (rate limit exceeded)\n",
    overloaded: "Error: 529 overloaded\n",
    server_error: "Error: 503 Service Unavailable\n",
    connection_reset: "Error: read ECONNRESET\n",
    connection_refused: "Error: connect ECONNREFUSED 127.0.0.1:443\n",
    auth: "Error: 401 Unauthorized: invalid api key\n",
    max_turns: "Error: maximum turns reached\n",
    session_expired: "Error: session not found\n",
  };
  if (turn.fail === "crash") return crash("agent-command");
  if (failures[turn.fail]) {
    process.stderr.write(failures[turn.fail]);
    return 1;
  }
  process.stdout.write(finalText(turn));
  return 0;
}

// ── shared ─────────────────────────────────────────────────────────────────

function parseOptions(cli, argv) {
  const argumentOf = (...names) => {
    const index = argv.findIndex((arg) => names.includes(arg));
    return index === -1 ? undefined : argv[index + 1];
  };
  if (cli === "claude") {
    return {
      schemaText: argumentOf("--json-schema"),
      resume: argumentOf("--resume", "-r"),
      model: argumentOf("--model"),
      permissionMode: argumentOf("--permission-mode"),
      verbose: argv.includes("--verbose"),
    };
  }
  if (cli === "codex") {
    const resumeIndex = argv.indexOf("resume");
    return {
      schemaFile: argumentOf("--output-schema"),
      resume: resumeIndex === -1 ? undefined : argv[resumeIndex + 1],
      model: argumentOf("-m", "--model"),
    };
  }
  return { resume: argumentOf("--session", "-s"), model: argumentOf("--model", "-m") };
}

function takeTurn() {
  const scriptPath = process.env.FAKE_CLI_SCRIPT;
  const script = scriptPath ? JSON.parse(fs.readFileSync(scriptPath, "utf8")) : { turns: [{}] };
  const statePath = process.env.FAKE_CLI_STATE;
  let index = 0;
  if (statePath) {
    index = fs.existsSync(statePath) ? Number(fs.readFileSync(statePath, "utf8")) || 0 : 0;
    fs.writeFileSync(statePath, String(index + 1));
  }
  const turn = script.turns?.[index];
  if (turn === undefined) {
    process.stderr.write(`fake-cli: the script has no turn ${index}\n`);
    process.exit(70);
  }
  return { turn, index };
}

function applyFiles(files) {
  for (const [file, content] of Object.entries(files ?? {})) {
    const target = path.resolve(file);
    if (content === null) {
      fs.rmSync(target, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
  }
}

function runShellCommand(command) {
  const result = spawnSync("/bin/sh", ["-c", command], { encoding: "utf8" });
  return { command, exitCode: result.status, stderr: result.stderr };
}

function selectedEnv() {
  const extra = (process.env.FAKE_CLI_LOG_ENV ?? "").split(",").filter(Boolean);
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("CLOSER_") || extra.includes(name)) env[name] = value;
  }
  return env;
}

function readJsonOrText(file, text) {
  const content = text ?? (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
  if (content === undefined) return { missingFile: file };
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

function appendLog(entry) {
  const logPath = process.env.FAKE_CLI_LOG;
  if (logPath) fs.appendFileSync(logPath, `${JSON.stringify(entry)}\n`);
}

function startGrandchild() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  return child.pid;
}

function hangForever() {
  setInterval(() => {}, 1000);
  return new Promise(() => {});
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readStdin() {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}
