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
  /** run.json now holds `text`, made from `state`: later marks amend it. */
  written(state: RunState, text: string): void;
  /** Whether a mark can stand for `state`: a run.json of this process is there to amend. */
  canMark(): boolean;
  /** Appends the mark of `state` (one `write`); in the file system when it returns. */
  mark(state: RunState): void;
  closeIfReplaced(): void;
  close(): void;
}

export function makeStateMarks(path: string, redact: Redactor, maxFieldBytes: number): StateMarks {
  const file = openAppendOnly(path);
  let base: { readonly state: RunState; readonly text: string; hash?: string } | undefined;
  return {
    written(state, text) {
      base = { state, text };
    },
    canMark: () => base !== undefined,
    mark(state) {
      if (base === undefined) throw new Error("no run.json to amend");
      // Hashed only when a mark needs it: most run.json writes are never amended.
      base.hash ??= hashText(base.text);
      const mark: StateMark = { base: base.hash, ...changes(base.state, state) };
      file.append(`${stringifyBounded(mark, redact, maxFieldBytes)}\n`);
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
