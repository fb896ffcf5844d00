import { createHash } from "node:crypto";
import type { RunState } from "../ports/run-state.js";
import { openAppendOnly } from "./append-only-file.js";
import { stringifyBounded } from "./bounded-json.js";
import type { Redactor } from "./secret-redactor.js";

/**
 * One line of `run-marks.jsonl`: how the state differs from the run.json
 * whose text hashes to `base` (docs/record.md#state-marks). Only the last
 * line counts, and only while run.json is still that text.
 */
export interface StateMark {
  readonly base: string;
  /** Top-level fields set or changed since that run.json. */
  readonly set: Readonly<Record<string, unknown>>;
  /** Top-level fields dropped since. */
  readonly unset: readonly string[];
}

/** The writer of `run-marks.jsonl`, told of every run.json it writes. */
export interface StateMarks {
  /** run.json now holds `text`, made from `state`: later marks amend it, the earlier are spent. */
  written(state: RunState, text: string): void;
  /**
   * Whether a mark can stand for `state`: a run.json of this process is there to amend, with
   * the same task and baseline (those are written whole, once: docs/record.md#start-files), and
   * the marks since it are still small beside it (else run.json is written again: a checkpoint).
   */
  canMark(state: RunState): boolean;
  /** Appends the mark of `state` (one `write`); in the file system when it returns. */
  mark(state: RunState): void;
  closeIfReplaced(): void;
  close(): void;
}

/**
 * The marks appended since run.json was last written may reach this many bytes, or twice
 * run.json's own size when that is more, before run.json is written whole again: the file a
 * resume reads stays small, and the rewrite costs a fraction of the marks it spares.
 */
export const MARKS_BUDGET_BYTES = 64 * 1024;

export function makeStateMarks(path: string, redact: Redactor, maxFieldBytes: number): StateMarks {
  const file = openAppendOnly(path);
  let base:
    | { readonly state: RunState; readonly text: string; hash?: string; marked: number }
    | undefined;
  return {
    written(state, text) {
      // The marks of the run.json replaced (this process's, or a stopped one's before a resume)
      // are spent, their base gone: emptied, not kept.
      if (base === undefined || base.marked > 0) {
        try {
          file.empty();
        } catch {
          // Marks left behind are still ignored by every reader: nothing fails for them.
        }
      }
      base = { state, text, marked: 0 };
    },
    canMark(state) {
      if (base === undefined) return false;
      if (state.task !== base.state.task || state.baseline !== base.state.baseline) return false;
      return base.marked < Math.max(MARKS_BUDGET_BYTES, 2 * base.text.length);
    },
    mark(state) {
      if (base === undefined) throw new Error("no run.json to amend");
      // Hashed once per run.json, when its first mark needs it.
      base.hash ??= hashText(base.text);
      const mark: StateMark = { base: base.hash, ...changes(base.state, state) };
      const line = `${stringifyBounded(mark, redact, maxFieldBytes)}\n`;
      file.append(line);
      base.marked += line.length;
    },
    closeIfReplaced: () => file.closeIfReplaced(),
    close: () => file.close(),
  };
}

/**
 * The state `run.json`'s text and `run-marks.jsonl`'s text say together: the
 * last whole mark applied when it amends this very run.json, else run.json's
 * own. A mark of an older run.json, or one cut short by a kill, is ignored.
 */
export function applyLastMark(stateText: string, parsed: object, marksText: string): object {
  const mark = lastMark(marksText);
  if (mark === undefined || mark.base !== hashText(stateText)) return parsed;
  const amended: Record<string, unknown> = { ...parsed, ...mark.set };
  for (const field of mark.unset) delete amended[field];
  return amended;
}

function changes(before: RunState, after: RunState): Pick<StateMark, "set" | "unset"> {
  const was = before as unknown as Readonly<Record<string, unknown>>;
  const now = after as unknown as Readonly<Record<string, unknown>>;
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  // The state is replaced, never changed in place: an unchanged field is the same value.
  for (const field of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (was[field] === now[field]) continue;
    if (now[field] === undefined) unset.push(field);
    else set[field] = now[field];
  }
  return { set, unset };
}

function lastMark(text: string): StateMark | undefined {
  // A last line without its line break was cut short: it does not count.
  const lines = text.split("\n").slice(0, -1);
  const line = lines.at(-1);
  if (line === undefined) return undefined;
  try {
    const mark = JSON.parse(line) as Partial<StateMark>;
    if (typeof mark.base !== "string" || typeof mark.set !== "object" || mark.set === null) {
      return undefined;
    }
    return { base: mark.base, set: mark.set, unset: Array.isArray(mark.unset) ? mark.unset : [] };
  } catch {
    return undefined;
  }
}

function hashText(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
