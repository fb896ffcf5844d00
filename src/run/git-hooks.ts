/**
 * The user's git hooks around closer's own git operations (docs/worktrees-and-github.md#git-hooks).
 * closer's git runs none (its `core.hooksPath` is pinned); where git would have run one,
 * closer runs the hook program from the repository's hooks folder as the run started, in the
 * validators' sandbox, with the validators' environment (no GitHub token, no push token, no
 * model API key), in the work tree the operation is in — or skips it, as `runner.git.hooks`
 * says. Each hook found is one `git-hook` event.
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import type { RunEventBody } from "../ports/events.js";
import type { GitHookCall, GitHookResult, GitHookRunner } from "../ports/git-hooks.js";
import type { SandboxPort } from "../ports/loop-ports.js";
import type { GitHooksMode } from "../ports/runner-config.js";
import { runCommand } from "../process/shell-command.js";
import type { HooksPlace } from "../workspace/index.js";

/** What the `git-hook` event says. */
export type GitHookEvent = Extract<RunEventBody, { type: "git-hook" }>;

/** What stays of a failing hook's stderr in its event. */
const DETAIL_CHARS = 2000;

export interface GitHooksOptions {
  readonly mode: GitHooksMode;
  /** The repository's hooks folder, read when the run started. */
  readonly place: HooksPlace;
  /** The validators' environment (docs/backends.md#environment): no credential of any kind. */
  readonly env: Readonly<Record<string, string>>;
  /** The run's OS sandbox; without it the hook runs outside one, with the same environment. */
  readonly sandbox?: SandboxPort | undefined;
  /** Bound of one hook: the validators' timeout. */
  readonly timeoutMs: number;
  /** Records what became of a hook. */
  readonly record: (event: GitHookEvent) => Promise<void>;
}

/** The port closer's git operations call where git would have run a hook. */
export function makeGitHooks(options: GitHooksOptions): GitHookRunner {
  return async (call) => {
    const file = await findHook(options.place, call);
    if (file === undefined) return { ran: false, present: false };
    const sandboxed = options.sandbox !== undefined;
    const said = { hook: call.hook, operation: call.operation, sandboxed };
    if (options.mode === "skip") {
      await options.record({ type: "git-hook", ...said, ran: false, sandboxed: false });
      return { ran: false, present: true };
    }
    const result = await runHook(options, file, call);
    const failed = result.exitCode !== 0;
    await options.record({
      type: "git-hook",
      ...said,
      ran: true,
      exitCode: result.exitCode,
      ...(failed && result.stderr.trim() !== ""
        ? { detail: result.stderr.trim().slice(-DETAIL_CHARS) }
        : {}),
    });
    return result;
  };
}

/**
 * The hook's program, as git finds it: `<hooks folder>/<name>` (a relative folder is relative
 * to the work tree the hook runs in), a file that is executable; anything else is no hook.
 */
async function findHook(place: HooksPlace, call: GitHookCall): Promise<string | undefined> {
  const file = path.resolve(call.cwd, place.path, call.hook);
  try {
    if (!(await stat(file)).isFile()) return undefined;
    await access(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

async function runHook(
  options: GitHooksOptions,
  file: string,
  call: GitHookCall,
): Promise<GitHookResult & { ran: true }> {
  const entry = await options.sandbox?.enter("validators");
  try {
    const result = await runCommand({
      command: [file, ...call.args],
      cwd: call.cwd,
      env: { ...options.env },
      inheritEnv: false,
      ...(call.stdin === undefined ? {} : { input: call.stdin }),
      timeoutMs: options.timeoutMs,
      ...(entry === undefined ? {} : { sandbox: entry.wrapper }),
    });
    return { ran: true, exitCode: result.exitCode, stderr: result.stderr };
  } finally {
    await entry?.leave();
  }
}
