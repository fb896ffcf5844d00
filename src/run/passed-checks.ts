import type { EventListener, RunEvent } from "../events.js";

/** Follows the event stream to know which validators passed in the latest iteration. */
export interface PassedChecks {
  readonly listener: EventListener;
  /** Validators that passed in the latest iteration (the verifying one, after completion). */
  passed(): readonly string[];
}

/** Tracks passed validators and hands every event on to `next`. */
export function trackPassedChecks(next?: EventListener): PassedChecks {
  let passed: string[] = [];
  const listener = (event: RunEvent) => {
    if (event.type === "iteration-start") passed = [];
    if (event.type === "validator-end" && event.valid && !passed.includes(event.validator)) {
      passed = [...passed, event.validator];
    }
    next?.(event);
  };
  return { listener, passed: () => passed };
}
