/**
 * The `replay` backend answers from a recorded session instead of a model:
 * for demos, and to re-check a run deterministically. Its source
 * (`runner.backend.replayFrom`) is either a session file (format in
 * session.ts) or a recorded run folder (see run-folder.ts).
 *
 * Each query takes the next recorded turn, re-applies the file changes that
 * turn made to the request's working tree (so the harness's real checks see
 * real files), and answers with its text, structured output, session id and
 * cost. When the turns run out it answers with a `config` error.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isInsideFolder } from "../../definition/inside-path.js";
import { CloserError, isCloserError } from "../../errors.js";
import type { Backend, BackendResponse } from "../../ports/backend.js";
import { isRunFolderFile } from "../../record/run-folder-reader.js";
import { abortedError, errorResponse, makeBackendError } from "../backend-errors.js";
import { readRunFolderTurns } from "./run-folder.js";
import { applyTurnChanges, type ReplayTurn, readReplaySessionFile } from "./session.js";

export interface ReplayBackendOptions {
  /** Absolute path of a session file or a recorded run folder. */
  readonly source: string;
  /** The folder the source must stay in, links followed (the agent folder; docs/backends.md#replay). */
  readonly root?: string;
}

/** Load every turn of a session file or run folder; problems are CloserErrors naming the file. */
export async function loadReplayTurns(source: string, root?: string): Promise<ReplayTurn[]> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(source)).isDirectory();
    if (root !== undefined) await assertInsideRoot(source, root);
  } catch (error) {
    if (isCloserError(error)) throw error;
    throw new CloserError("config_error", "the replay source does not exist", {
      file: source,
      expected: "a session JSON file or a recorded run folder",
      fix: "set runner.backend.replayFrom (relative to the agent folder) to an existing file or folder",
      cause: error,
    });
  }
  if (isFolder) return readRunFolderTurns(source);
  // A run's own files stand for their folder.
  if (isRunFolderFile(source)) {
    return readRunFolderTurns(path.dirname(source));
  }
  return readReplaySessionFile(source);
}

/** A source that is, or leads through a link to, a place outside the agent folder is refused. */
async function assertInsideRoot(source: string, root: string): Promise<void> {
  const [real, realRoot] = await Promise.all([realpath(source), realpath(root)]);
  if (isInsideFolder(realRoot, real)) return;
  throw new CloserError("config_error", "the replay source leads out of the agent folder", {
    file: source,
    jsonPath: "runner.backend.replayFrom",
    expected: "a session file or a recorded run folder inside the agent folder",
    found: real,
    fix: "copy the recording into the agent folder (e.g. recorded/) and point replayFrom at the copy",
  });
}

export function makeReplayBackend(options: ReplayBackendOptions): Backend {
  let turns: Promise<ReplayTurn[]> | undefined;
  let nextTurn = 0;
  return {
    name: "replay",
    // The answers are the recorded ones, structured output included; the prompt changes nothing.
    enforcesSchema: true,
    async query(request) {
      const startedMs = Date.now();
      const elapsed = () => Date.now() - startedMs;
      if (request.signal.aborted) return errorResponse(abortedError());
      try {
        turns ??= loadReplayTurns(options.source, options.root);
        const recorded = await turns;
        const turnNumber = nextTurn++;
        const turn = recorded[turnNumber];
        if (turn === undefined) {
          const message = `the recorded session ${options.source} has ${recorded.length} answer(s) and query ${turnNumber + 1} asked for another; record a longer session or lower maxIterations`;
          return errorResponse(makeBackendError("config", message), { durationMs: elapsed() });
        }
        // A query out of turns did its work and answered: the loop reads it (docs/loop.md#error-classes).
        if (turn.error !== undefined && turn.error.kind !== "max_turns") {
          const transcript = [{ type: "replay-turn", turn }];
          return errorResponse(turn.error, { durationMs: elapsed(), transcript });
        }
        await applyTurnChanges(turn, request.cwd, request.sandbox, request.onToolCall);
        return answer(turn, request.sessionId, elapsed());
      } catch (error) {
        if (!isCloserError(error)) throw error;
        return errorResponse(makeBackendError("config", error.describe()), {
          durationMs: elapsed(),
        });
      }
    },
  };
}

function answer(
  turn: ReplayTurn,
  requestedSession: string | undefined,
  durationMs: number,
): BackendResponse {
  const structuredText =
    turn.structuredOutput === undefined ? "" : JSON.stringify(turn.structuredOutput);
  const sessionId = turn.sessionId ?? requestedSession ?? "replay-session";
  return {
    ...(turn.structuredOutput === undefined ? {} : { structuredOutput: turn.structuredOutput }),
    text: turn.text ?? structuredText,
    sessionId,
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    costUsd: turn.costUsd ?? 0,
    durationMs,
    toolsUsed: turn.toolsUsed ?? [],
    // Recorded whole, so a run made by replay can be replayed again.
    transcript: [{ type: "replay-turn", turn }],
    ...(turn.error === undefined ? {} : { error: turn.error }),
  };
}
