/**
 * The `command` backend: any executable answers the prompt
 * (docs/backends.md#command). The prompt goes to its stdin, its stdout is the
 * answer text, and it finds the check id and the decision file in
 * `CLOSER_CHECK_ID` / `CLOSER_DECISION_FILE` (from the request's environment).
 * A non-zero exit is a crash (or, when stderr names one, a failure of the
 * model API such as a 429); stderr is only ever an error message, never a
 * declaration.
 *
 * Added to its environment: `CLOSER_OUTPUT_SCHEMA` (the step's schema as JSON,
 * when the step has one), `CLOSER_SESSION_ID` (the session to continue),
 * `CLOSER_MODEL`, and `CLOSER_SYSTEM_PROMPT_FILE` (the agent's system prompt,
 * written to a private temporary file for the query). Unless its
 * configuration says the program answers in that schema (`readsOutputSchema`),
 * closer appends the schema to the prompt (docs/backends.md#schema-instructions).
 * A usage line on stdout reports cost and tokens (docs/backends.md#command-usage).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Backend, BackendError, BackendRequest } from "../../ports/backend.js";
import type { CommandResult } from "../../process/shell-command.js";
import { crashError, errorResponse } from "../backend-errors.js";
import { classifyFailure, tailOf } from "../classify-failure.js";
import { takeUsageLine } from "./command-usage.js";
import {
  type AgentCliEnvironment,
  environmentOf,
  runAgentCli,
  withLeftRunning,
} from "./run-agent-cli.js";

export interface CommandBackendOptions extends AgentCliEnvironment {
  /** Executable and its arguments. */
  readonly command: readonly string[];
  /** The program answers in the schema it reads from `CLOSER_OUTPUT_SCHEMA` (default false). */
  readonly readsOutputSchema?: boolean;
}

function addedEnv(request: BackendRequest, systemPromptFile?: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (systemPromptFile !== undefined) env.CLOSER_SYSTEM_PROMPT_FILE = systemPromptFile;
  if (request.schema !== undefined) env.CLOSER_OUTPUT_SCHEMA = JSON.stringify(request.schema);
  if (request.sessionId !== undefined) env.CLOSER_SESSION_ID = request.sessionId;
  if (request.model !== undefined) env.CLOSER_MODEL = request.model;
  return env;
}

export function makeCommandBackend(options: CommandBackendOptions): Backend {
  return {
    name: "command",
    enforcesSchema: options.readsOutputSchema ?? false,
    async query(request) {
      const systemPrompt = await writeSystemPrompt(request.systemPrompt);
      const run = await runAgentCli({
        command: options.command,
        ...environmentOf(options),
        request,
        input: request.prompt,
        extraEnv: addedEnv(request, systemPrompt?.file),
      }).finally(() => systemPrompt?.remove());
      if (!run.ok) return run.response;
      const { result } = run;
      const { text, reported } = takeUsageLine(result.stdout);
      const response = {
        text,
        ...(reported.usage === undefined ? {} : { usage: reported.usage }),
        costUsd: reported.costUsd ?? 0,
        durationMs: result.durationMs,
        toolsUsed: [],
        transcript: [{ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }],
        ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      };
      if (result.exitCode === 0) return withLeftRunning(response, result);
      return errorResponse(exitError(options.command[0] ?? "command", result), response);
    },
  };
}

/**
 * The agent's system prompt as a file only the program's user can read, in a
 * folder of its own outside the working tree; removed after the query.
 */
async function writeSystemPrompt(
  text: string | undefined,
): Promise<{ readonly file: string; remove(): Promise<void> } | undefined> {
  if (text === undefined || text.trim() === "") return undefined;
  const folder = await mkdtemp(join(tmpdir(), "closer-system-"));
  const file = join(folder, "system.md");
  await writeFile(file, text, { mode: 0o600 });
  return { file, remove: () => rm(folder, { recursive: true, force: true }) };
}

/** A non-zero exit: a crash, unless stderr names a failure of the model API (a 429, say). */
function exitError(program: string, result: CommandResult): BackendError {
  const crash = crashError({
    program,
    exitCode: result.exitCode,
    signal: result.signal ?? null,
    stderr: result.stderr,
  });
  const classified = classifyFailure({
    message: tailOf(result.stderr),
    fallback: "crash",
    nowMs: Date.now(),
  });
  return classified.kind === "crash" ? crash : { ...classified, message: crash.message };
}
