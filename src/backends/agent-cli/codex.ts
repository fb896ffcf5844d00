/**
 * The `codex` backend: OpenAI Codex CLI,
 * `codex exec --json [--output-schema FILE] [-m model] [resume <id>] -` with the
 * prompt on stdin. It prints JSON-lines events (`thread.started`,
 * `item.completed`, `turn.completed`, `turn.failed`, `error`); with a schema
 * the final agent message is the structured output as JSON text.
 *
 * Codex has no flags for allowed/denied tools or an appended system prompt:
 * tools are governed by its sandbox (from the permission mode) and the
 * agent's system text goes ahead of the first prompt of a session.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { numberOr, parseJsonLines, stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import type { Backend, BackendRequest, BackendResponse, Usage } from "../../ports/backend.js";
import type { PermissionMode } from "../../ports/runner-config.js";
import type { CommandResult } from "../../process/shell-command.js";
import { getGitDirs } from "../../workspace/git.js";
import { errorResponse } from "../backend-errors.js";
import { classifyFailure, tailOf } from "../classify-failure.js";
import { makeCodexToolCallReader } from "../tool-calls/codex-tool-calls.js";
import { toolCallsFromLines } from "../tool-calls/tool-call-lines.js";
import {
  type AgentCliEnvironment,
  environmentOf,
  promptWithSystemText,
  runAgentCli,
  withLeftRunning,
} from "./run-agent-cli.js";
import { dropNullOptionals, strictSchema } from "./strict-schema.js";

export interface CodexBackendOptions extends AgentCliEnvironment {
  /** Executable and leading arguments, e.g. `["codex"]`. */
  readonly command: readonly string[];
  /** Folder for the schema file of each query; defaults to the system temp folder. */
  readonly tempDir?: string;
  readonly now?: () => number;
}

/**
 * Codex's sandbox for closer's permission mode. workspace-write keeps `.git`
 * read-only, and a linked worktree's common git dir lies outside the working
 * tree, so the git dirs are added as writable roots: the agent must commit.
 */
function sandboxArgs(
  mode: PermissionMode,
  gitDirs: readonly string[],
  inClosersSandbox: boolean,
): string[] {
  if (mode === "bypassPermissions") return ["--dangerously-bypass-approvals-and-sandbox"];
  if (mode === "plan") return ["--sandbox", "read-only"];
  // Codex's own sandbox cannot start inside closer's (it would need namespaces of its own);
  // closer's OS sandbox is then the wall around its tools (docs/sandbox.md#limits).
  if (inClosersSandbox) return ["--sandbox", "danger-full-access"];
  return ["--sandbox", "workspace-write", ...gitDirs.flatMap((dir) => ["--add-dir", dir])];
}

/** Arguments after the executable; `schemaFile` is where the request's schema was written. */
function codexArgs(
  request: BackendRequest,
  schemaFile: string | undefined,
  gitDirs: readonly string[],
): string[] {
  const args = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    // A login shell re-reads /etc/profile, which on many systems resets PATH
    // and drops the gh shim closer put first on it.
    "-c",
    "allow_login_shell=false",
    ...sandboxArgs(request.permissionMode, gitDirs, request.sandbox !== undefined),
  ];
  if (schemaFile !== undefined) args.push("--output-schema", schemaFile);
  if (request.model !== undefined) args.push("-m", request.model);
  if (request.sessionId !== undefined) args.push("resume", request.sessionId);
  args.push("-");
  return args;
}

export function makeCodexBackend(options: CodexBackendOptions): Backend {
  const now = options.now ?? Date.now;
  return {
    name: "codex",
    enforcesSchema: true,
    async query(request) {
      const schemaDir =
        request.schema === undefined
          ? undefined
          : await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), "closer-codex-"));
      try {
        const schemaFile =
          schemaDir === undefined ? undefined : path.join(schemaDir, "output.schema.json");
        if (schemaFile !== undefined && request.schema !== undefined) {
          // docs/backends.md#strict-schema
          await writeFile(schemaFile, JSON.stringify(strictSchema(request.schema)));
        }
        const gitDirs =
          request.permissionMode === "plan" || request.permissionMode === "bypassPermissions"
            ? []
            : await getGitDirs(request.cwd);
        const run = await runAgentCli({
          command: [...options.command, ...codexArgs(request, schemaFile, gitDirs)],
          ...environmentOf(options),
          request,
          input: promptWithSystemText(request),
          onLine: toolCallsFromLines(makeCodexToolCallReader(), request.onToolCall),
        });
        if (!run.ok) return run.response;
        return withLeftRunning(readCodexEvents(run.result, request, now()), run.result);
      } finally {
        if (schemaDir !== undefined) await rm(schemaDir, { recursive: true, force: true });
      }
    },
  };
}

/** Read the JSON-lines events of one `codex exec --json` process as one response. */
function readCodexEvents(
  result: CommandResult,
  request: Pick<BackendRequest, "sessionId" | "schema">,
  nowMs: number,
): BackendResponse {
  const events = parseJsonLines(result.stdout);
  let sessionId = request.sessionId;
  let text: string | undefined;
  let usage: Usage | undefined;
  let failure: string | undefined;
  let lastError: string | undefined;
  const toolsUsed: string[] = [];
  for (const event of events) {
    if (event.type === "thread.started") sessionId = stringOr(event.thread_id, sessionId);
    if (event.type === "turn.completed") usage = addUsage(usage, event.usage);
    if (event.type === "turn.failed") failure = errorMessage(event.error) ?? "the turn failed";
    if (event.type === "error") lastError = stringOr(event.message, lastError);
    if (event.type !== "item.completed" || !isPlainObject(event.item)) continue;
    const item = event.item;
    if (item.type === "agent_message") text = stringOr(item.text, text);
    else if (item.type === "error") lastError = stringOr(item.message, lastError);
    else if (item.type !== "reasoning" && typeof item.type === "string") {
      toolsUsed.push(toolName(item));
    }
  }
  const base = {
    sessionId,
    toolsUsed,
    transcript: events,
    durationMs: result.durationMs,
    text: text ?? "",
    costUsd: 0,
    ...(usage === undefined ? {} : { usage }),
  };
  const failed = failure !== undefined || result.exitCode !== 0 || text === undefined;
  if (failed) {
    const message =
      failure ??
      lastError ??
      (tailOf(result.stderr) || `codex exited with code ${result.exitCode} without an answer`);
    return errorResponse(classifyFailure({ message, fallback: "crash", nowMs }), base);
  }
  if (request.schema === undefined) return base;
  const answered = parseJsonObject(base.text);
  if (answered === undefined) return base;
  // A null optional of the strict schema reads as absent (docs/backends.md#strict-schema).
  return { ...base, structuredOutput: dropNullOptionals(answered, request.schema) };
}

function toolName(item: Record<string, unknown>): string {
  if (item.type === "mcp_tool_call") {
    return `mcp:${stringOr(item.server, "?")}/${stringOr(item.tool, "?")}`;
  }
  return String(item.type);
}

function errorMessage(value: unknown): string | undefined {
  return isPlainObject(value) ? stringOr(value.message, undefined) : undefined;
}

function addUsage(total: Usage | undefined, value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return total;
  const cached = numberOr(value.cached_input_tokens, 0);
  return {
    // Codex counts cached tokens inside input_tokens; closer keeps them apart.
    inputTokens: (total?.inputTokens ?? 0) + Math.max(0, numberOr(value.input_tokens, 0) - cached),
    outputTokens: (total?.outputTokens ?? 0) + numberOr(value.output_tokens, 0),
    cacheReadTokens: (total?.cacheReadTokens ?? 0) + cached,
    cacheCreationTokens: total?.cacheCreationTokens ?? 0,
  };
}

function parseJsonObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text.trim());
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
