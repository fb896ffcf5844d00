import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { isRetryableKind } from "../backends/backend-errors.js";
import type {
  Backend,
  BackendError,
  BackendErrorKind,
  BackendRequest,
  BackendResponse,
  Usage,
} from "../ports/backend.js";
import { type CommandResult, runCommand } from "../process/shell-command.js";

/**
 * One answer of the scripted model. Before answering it may act on the
 * working tree as an agent would: write or delete files, run commands, or do
 * anything else in `act`.
 */
export interface ScriptedTurn {
  /** Files to write (text) or delete (null), relative to the request's cwd. */
  readonly files?: Readonly<Record<string, string | null>>;
  /** Commands run in the request's cwd, in order (a string runs through the shell). */
  readonly commands?: readonly (string | readonly string[])[];
  /** Anything else the agent does; runs after files and commands. */
  readonly act?: (request: BackendRequest) => void | Promise<void>;
  readonly structuredOutput?: unknown;
  readonly text?: string;
  /** Answer with a failure instead (see `scriptedError` for the usual ones). */
  readonly error?: BackendError;
  readonly costUsd?: number;
  readonly usage?: Usage;
  /** Session id to report; defaults to `session-1` (the request's own id when it continues one). */
  readonly sessionId?: string;
  readonly toolsUsed?: readonly string[];
  /**
   * Real time the model "thinks" before answering. Like a real backend, the
   * query gives up at the request's timeoutMs (answering `timeout`) or when
   * its signal aborts (answering `aborted`).
   */
  readonly delayMs?: number;
}

/** A turn, or a function of the request that makes one (to answer with the check id, say). */
export type ScriptedStep =
  | ScriptedTurn
  | ((request: BackendRequest, call: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** A Backend that plays a script and remembers every request. */
export interface ScriptedBackend extends Backend {
  /** Every request received, in order (prompts, schemas, sessions, env). */
  readonly calls: readonly BackendRequest[];
  /** The output of each command a turn ran, in order. */
  readonly commandResults: readonly CommandResult[];
}

/** The usual backend failures, as a real backend would report them. */
export function scriptedError(
  kind: BackendErrorKind,
  options: { retryAfterMs?: number; message?: string } = {},
): BackendError {
  return {
    kind,
    message: options.message ?? `scripted ${kind.replaceAll("_", " ")}`,
    retryable: isRetryableKind(kind),
    ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
  };
}

/**
 * A backend that answers from a list of turns, one per query, acting on the
 * working tree before it answers. When the script runs out it answers with a
 * `crash` error that says so, so a test that asked for too many turns fails
 * loudly.
 */
export function makeScriptedBackend(
  steps: readonly ScriptedStep[],
  options: {
    name?: string;
    /** Whether it counts as a backend that enforces the output schema (default true). */
    enforcesSchema?: boolean;
  } = {},
): ScriptedBackend {
  const calls: BackendRequest[] = [];
  const commandResults: CommandResult[] = [];
  return {
    name: options.name ?? "scripted",
    enforcesSchema: options.enforcesSchema ?? true,
    calls,
    commandResults,
    async query(request) {
      const call = calls.length;
      calls.push(request);
      const startedAtMs = performance.now();
      const step = steps[call];
      if (step === undefined) {
        return answer(request, startedAtMs, {
          error: {
            kind: "crash",
            message: `scripted backend has no turn for query ${call + 1} (script has ${steps.length})`,
            retryable: false,
          },
        });
      }
      const turn = typeof step === "function" ? await step(request, call) : step;
      const interrupted = await think(turn.delayMs ?? 0, request);
      if (interrupted) return answer(request, startedAtMs, { error: interrupted });
      await writeFiles(request.cwd, turn.files ?? {});
      for (const command of turn.commands ?? []) {
        commandResults.push(
          await runCommand({
            command,
            cwd: request.cwd,
            env: { ...request.env },
            timeoutMs: request.timeoutMs,
            signal: request.signal,
          }),
        );
      }
      await turn.act?.(request);
      return answer(request, startedAtMs, turn);
    },
  };
}

async function think(delayMs: number, request: BackendRequest): Promise<BackendError | undefined> {
  if (delayMs <= 0 && !request.signal.aborted) return undefined;
  const waitMs = Math.min(delayMs, request.timeoutMs);
  const outcome = await new Promise<"done" | "aborted">((done) => {
    if (request.signal.aborted) return done("aborted");
    const onAbort = () => {
      clearTimeout(timer);
      done("aborted");
    };
    const timer = setTimeout(() => {
      request.signal.removeEventListener("abort", onAbort);
      done("done");
    }, waitMs);
    request.signal.addEventListener("abort", onAbort, { once: true });
  });
  if (outcome === "aborted") return scriptedError("aborted", { message: "query aborted" });
  if (delayMs > request.timeoutMs) {
    return scriptedError("timeout", { message: `query timed out after ${request.timeoutMs} ms` });
  }
  return undefined;
}

async function writeFiles(cwd: string, files: Readonly<Record<string, string | null>>) {
  for (const [path, content] of Object.entries(files)) {
    const target = resolve(cwd, path);
    if (content === null) {
      await rm(target, { force: true, recursive: true });
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }
}

function answer(request: BackendRequest, startedAtMs: number, turn: ScriptedTurn): BackendResponse {
  const sessionId = turn.sessionId ?? request.sessionId ?? "session-1";
  return {
    ...(turn.structuredOutput === undefined ? {} : { structuredOutput: turn.structuredOutput }),
    text: turn.text ?? "",
    sessionId,
    usage: turn.usage ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
    },
    costUsd: turn.costUsd ?? 0,
    durationMs: performance.now() - startedAtMs,
    toolsUsed: turn.toolsUsed ?? [],
    transcript: [
      { role: "user", content: request.prompt },
      { role: "assistant", content: turn.text ?? "", structuredOutput: turn.structuredOutput },
    ],
    ...(turn.error === undefined ? {} : { error: turn.error }),
  };
}
