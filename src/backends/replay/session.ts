/**
 * The recorded session the `replay` backend answers from, and how its file
 * changes are put back into a working tree.
 *
 * A session file (JSON) looks like this:
 *
 * ```json
 * {
 *   "version": 1,
 *   "turns": [
 *     {
 *       "text": "Added the greeting and its test.",
 *       "structuredOutput": { "status": "completed", "next_action": { "action": "complete" } },
 *       "files": { "src/greet.ts": "export const greet = () => 'hi';\n", "old.txt": null },
 *       "edits": [{ "path": "README.md", "oldText": "TODO", "newText": "Done" }],
 *       "commands": ["git add -A", "git commit -m 'Add the greeting'"],
 *       "costUsd": 0.012,
 *       "sessionId": "demo-session",
 *       "toolsUsed": ["Write", "Edit"]
 *     }
 *   ]
 * }
 * ```
 *
 * Each query takes the next turn. Before answering, the turn's `files` are
 * written (whole contents; `null` deletes) and then its `edits` applied (the
 * first `oldText` becomes `newText`, or every one with `replaceAll`), all
 * relative to the request's working tree, and then its `commands` (the shell
 * commands the agent ran, such as `git commit`) are run there in order, so the
 * harness's own checks see real files and real commits. Every field is optional; `text` defaults to the structured
 * output as JSON. A turn with `error` (`{kind, message, retryable,
 * retryAfterMs?}`) answers as that failure.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { CloserError } from "../../errors.js";
import { BACKEND_ERROR_KINDS, type ToolAction, type ToolActivity } from "../../ports/backend.js";
import type { LaunchWrapper } from "../../ports/process.js";
import { makeChildEnvironment } from "../../process/child-environment.js";
import { runCommand } from "../../process/shell-command.js";

/** One replace inside an existing file. */
export interface FileEdit {
  readonly path: string;
  readonly oldText: string;
  readonly newText: string;
  readonly replaceAll?: boolean;
}

const usageSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative().default(0),
  cacheCreationTokens: z.number().nonnegative().default(0),
});

const errorSchema = z.object({
  kind: z.enum(BACKEND_ERROR_KINDS),
  message: z.string(),
  retryable: z.boolean(),
  retryAfterMs: z.number().nonnegative().optional(),
});

const turnSchema = z.strictObject({
  text: z.string().optional(),
  structuredOutput: z.unknown().optional(),
  files: z.record(z.string(), z.string().nullable()).optional(),
  edits: z
    .array(
      z.strictObject({
        path: z.string(),
        oldText: z.string().min(1),
        newText: z.string(),
        replaceAll: z.boolean().optional(),
      }),
    )
    .optional(),
  commands: z.array(z.string().min(1)).optional(),
  costUsd: z.number().nonnegative().optional(),
  sessionId: z.string().optional(),
  toolsUsed: z.array(z.string()).optional(),
  usage: usageSchema.optional(),
  error: errorSchema.optional(),
});

const sessionSchema = z.strictObject({
  version: z.literal(1).optional(),
  turns: z.array(turnSchema),
});

/** One recorded answer (see the module comment for the file format). */
export type ReplayTurn = z.infer<typeof turnSchema>;

/** A session file: `{ "version": 1, "turns": [ReplayTurn, ...] }`. */
export type ReplaySession = z.infer<typeof sessionSchema>;

/** Check a parsed session file; problems name the file and the JSON path. */
export function parseReplaySession(value: unknown, file: string): ReplayTurn[] {
  const parsed = sessionSchema.safeParse(value);
  if (parsed.success) return parsed.data.turns;
  const issue = parsed.error.issues[0];
  const jsonPath = (issue?.path ?? [])
    .map((key, index) =>
      typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`,
    )
    .join("");
  throw new CloserError(
    "config_error",
    `the replay session is not valid: ${issue?.message ?? "unknown problem"}`,
    {
      file,
      ...(jsonPath === "" ? {} : { jsonPath }),
      expected:
        '{ "version": 1, "turns": [{ "text"?, "structuredOutput"?, "files"?, "edits"?, ... }] }',
      fix: "correct the session file (see the replay backend's documentation for its format)",
    },
  );
}

/** Read and check a session file. */
export async function readReplaySessionFile(file: string): Promise<ReplayTurn[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CloserError("config_error", "the replay session file cannot be read", {
      file,
      found: (error as Error).message,
      fix: "point runner.backend.replayFrom at a session file or a recorded run folder",
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CloserError("config_error", "the replay session file is not valid JSON", {
      file,
      found: (error as Error).message,
      fix: "correct the JSON of the session file",
      cause: error,
    });
  }
  return parseReplaySession(value, file);
}

/** Write the turn's files, apply its edits, then run its commands (in the run's sandbox, when on), inside `cwd`. */
export async function applyTurnChanges(
  turn: ReplayTurn,
  cwd: string,
  sandbox?: LaunchWrapper,
  onToolCall?: (activity: ToolActivity) => void,
): Promise<void> {
  // What the replay does again is told as the tool calls it stands for (docs/observe.md#tool-calls).
  let calls = 0;
  const told = async <T>(
    tool: string,
    action: ToolAction,
    target: string,
    act: () => Promise<T>,
  ) => {
    const call = { id: `replay-${++calls}`, tool, action, target };
    onToolCall?.({ phase: "start", call });
    try {
      const done = await act();
      onToolCall?.({
        phase: "end",
        call,
        failed: false,
        ...(action === "command" ? { exitCode: 0 } : {}),
      });
      return done;
    } catch (error) {
      onToolCall?.({ phase: "end", call, failed: true });
      throw error;
    }
  };
  for (const [file, content] of Object.entries(turn.files ?? {})) {
    const target = insideTree(cwd, file);
    if (content === null) {
      await told("delete", "edit", file, () => rm(target, { force: true, recursive: true }));
      continue;
    }
    await told("write", "write", file, async () => {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
    });
  }
  for (const edit of turn.edits ?? []) {
    await told("edit", "edit", edit.path, () => applyEdit(cwd, edit));
  }
  for (const command of turn.commands ?? []) {
    await told("bash", "command", command, () => runRecordedCommand(cwd, command, sandbox));
  }
}

const RECORDED_COMMAND_TIMEOUT_MS = 60_000;

async function runRecordedCommand(
  cwd: string,
  command: string,
  sandbox: LaunchWrapper | undefined,
): Promise<void> {
  // A recorded command is the model's: it gets the backend's environment, never closer's tokens.
  const result = await runCommand({
    command,
    cwd,
    env: makeChildEnvironment("backend", process.env),
    inheritEnv: false,
    timeoutMs: RECORDED_COMMAND_TIMEOUT_MS,
    ...(sandbox === undefined ? {} : { sandbox }),
  });
  if (result.exitCode === 0) return;
  throw new CloserError("config_error", `the replayed command \`${command}\` failed`, {
    found: `exit code ${result.exitCode}: ${(result.stderr || result.stdout).trim().slice(-400)}`,
    fix: "replay against the same starting tree the session was recorded on",
  });
}

async function applyEdit(cwd: string, edit: FileEdit): Promise<void> {
  const target = insideTree(cwd, edit.path);
  let content: string;
  try {
    content = await readFile(target, "utf8");
  } catch (error) {
    throw new CloserError(
      "config_error",
      `the replayed edit needs ${edit.path}, which does not exist`,
      {
        found: (error as Error).message,
        fix: "replay against the same starting tree the session was recorded on",
        cause: error,
      },
    );
  }
  if (!content.includes(edit.oldText)) {
    throw new CloserError("config_error", `the replayed edit of ${edit.path} does not apply`, {
      expected: `the text ${JSON.stringify(edit.oldText.slice(0, 80))}`,
      found: "a file without it",
      fix: "replay against the same starting tree the session was recorded on",
    });
  }
  const next = edit.replaceAll
    ? content.split(edit.oldText).join(edit.newText)
    : content.replace(edit.oldText, () => edit.newText);
  await writeFile(target, next);
}

function insideTree(cwd: string, file: string): string {
  const root = path.resolve(cwd);
  const target = path.resolve(root, file);
  const relative = path.relative(root, target);
  const escapes = relative === ".." || relative.startsWith(`..${path.sep}`);
  if (path.isAbsolute(file) || relative === "" || escapes || path.isAbsolute(relative)) {
    throw new CloserError("config_error", `the replayed file ${file} is outside the working tree`, {
      expected: "a path relative to the working tree",
      found: file,
      fix: "record file paths relative to the working tree",
    });
  }
  return target;
}
