import {
  EVENT_FORMAT_VERSION,
  type EventListener,
  type RunEvent,
  type RunEventBody,
} from "../events.js";
import type { Clock } from "../ports.js";
import { createRunRecord } from "../record/run-record.js";
import type { RunState } from "../record/run-state.js";
import { recordCompletion, recordSideEffect } from "../record/update-run-state.js";

/** The run record after the loop has ended: side effects and the worktree's end. */
export interface PostRunRecord {
  /** Appends an event to events.jsonl and hands it to the listener. */
  emit(body: RunEventBody): Promise<void>;
  /** Adds a done side effect to run.json. */
  recordEffect(effectKey: string): Promise<void>;
  /** Keeps the verifying iteration's summary and passed checks in run.json. */
  recordCompletion(completion: NonNullable<RunState["completion"]>): Promise<void>;
}

export interface PostRunRecordOptions {
  readonly runDir: string;
  readonly runId: string;
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onEvent?: EventListener;
}

export function makePostRunRecord(options: PostRunRecordOptions): PostRunRecord {
  const record = createRunRecord(options.runDir, { env: options.env });
  const update = { env: options.env, now: options.clock.now };
  return {
    async emit(body) {
      const event: RunEvent = {
        v: EVENT_FORMAT_VERSION,
        at: options.clock.now(),
        runId: options.runId,
        ...body,
      };
      await record.emit(event);
      options.onEvent?.(event);
    },
    async recordEffect(effectKey) {
      await recordSideEffect(options.runDir, effectKey, update);
    },
    async recordCompletion(completion) {
      await recordCompletion(options.runDir, completion, update);
    },
  };
}
