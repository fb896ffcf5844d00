/**
 * The tools of the openai-compatible backend that list, search and run
 * commands in the working tree (docs/backends.md#openai-compatible).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { LeftRunningProcess } from "../../ports/backend.js";
import type { LaunchWrapper } from "../../ports/process.js";
import { runCommand } from "../../process/shell-command.js";
import { boundaryDenial } from "../boundary.js";
import { capOutput, type ToolContext } from "./file-tools.js";
import { resolveInsideTree } from "./working-tree-path.js";

/** What the bash tool runs with besides the working tree. */
export interface ShellContext extends ToolContext {
  /** The backend environment (with the `gh` shim first on its PATH). */
  env?: Readonly<Record<string, string>>;
  sandbox?: LaunchWrapper;
  signal?: AbortSignal;
  /** Longest one command may run (default 120 s). */
  commandTimeoutMs?: number;
  /** closer's GitHub API address, refused like api.github.com (docs/worktrees-and-github.md#github-boundary). */
  githubApiUrl?: string;
  /** Hears each command refused at the GitHub boundary. */
  onRefused?: (command: string) => void;
  /** Hears the processes a command started that left its group and still ran when it ended. */
  onLeftRunning?: (processes: readonly LeftRunningProcess[]) => void;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Bytes kept of each of a command's stdout and stderr. */
const COMMAND_OUTPUT_BYTES = 64 * 1024;
const MAX_LISTED = 500;
const MAX_MATCHES = 200;
const SKIPPED = ["**/.git/**", "**/node_modules/**"];

async function filesMatching(root: string, pattern: string): Promise<string[]> {
  const { glob } = await import("tinyglobby");
  const files = await glob(pattern, {
    cwd: root,
    ignore: SKIPPED,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
  });
  return files.filter((file) => !path.isAbsolute(file) && !file.split("/").includes("..")).sort();
}

/** The files of the tree matching a glob (default every file), up to a cap. */
export async function listTool(context: ToolContext, input: { pattern?: string }): Promise<string> {
  try {
    const files = await filesMatching(context.root, input.pattern ?? "**/*");
    const shown = files.slice(0, MAX_LISTED).join("\n");
    const more = files.length > MAX_LISTED ? `\n… (${files.length - MAX_LISTED} more files)` : "";
    return files.length === 0 ? "no files match" : capOutput(shown + more);
  } catch (error) {
    return `error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Lines matching a regular expression, as `file:line: text`, in files matching a glob. */
export async function grepTool(
  context: ToolContext,
  input: { pattern: string; glob?: string },
): Promise<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(input.pattern, "u");
  } catch (error) {
    return `error: ${error instanceof Error ? error.message : String(error)}`;
  }
  const matches: string[] = [];
  for (const file of await filesMatching(context.root, input.glob ?? "**/*")) {
    const target = await resolveInsideTree(context.root, file);
    if (!target.ok) continue;
    const text = await readFile(target.file, "utf8").catch(() => "");
    for (const [index, line] of text.split("\n").entries()) {
      if (regex.test(line)) matches.push(`${file}:${index + 1}: ${line}`);
      if (matches.length > MAX_MATCHES) break;
    }
    if (matches.length > MAX_MATCHES) break;
  }
  if (matches.length === 0) return "no matches";
  const more = matches.length > MAX_MATCHES ? "\n… (more matches left out)" : "";
  return capOutput(matches.slice(0, MAX_MATCHES).join("\n") + more);
}

/** Runs a shell command in the tree, in its own process group, under a timeout; exit code and output. */
export async function bashTool(context: ShellContext, input: { command: string }): Promise<string> {
  const denial = boundaryDenial("bash", input, context.githubApiUrl);
  if (denial !== undefined) {
    context.onRefused?.(input.command);
    return `error: refused: ${denial}`;
  }
  const timeoutMs = context.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const result = await runCommand({
    command: input.command,
    cwd: context.root,
    timeoutMs,
    maxOutputBytes: COMMAND_OUTPUT_BYTES,
    ...(context.env === undefined ? {} : { env: context.env }),
    ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
  const ending = result.timedOut
    ? `timed out after ${timeoutMs} ms; its process group was ended`
    : result.aborted
      ? "aborted"
      : `exit code ${result.exitCode}`;
  const parts = [ending];
  const leftRunning = result.leftRunning ?? [];
  if (leftRunning.length > 0) {
    context.onLeftRunning?.(leftRunning);
    const named = leftRunning.map((left) => `${left.pid} (${left.command})`).join(", ");
    parts.push(`left running outside the command's process group: ${named}`);
  }
  if (result.stdout !== "") parts.push(`stdout:\n${result.stdout}`);
  if (result.stderr !== "") parts.push(`stderr:\n${result.stderr}`);
  return capOutput(parts.join("\n"));
}
