import path from "node:path";
import type { ToolActivity } from "../ports/backend.js";
import { announce, emit, type RunContext } from "./run-context.js";

/**
 * What a query's backend calls with its tool activity (docs/observe.md#tool-calls):
 * a call's start goes to the listener only (the live view), its end into the record
 * as a `tool-call` event with how long it took. Paths inside the working tree are
 * named relative to it.
 */
export function reportToolCalls(
  run: RunContext,
  iteration: number,
): (activity: ToolActivity) => void {
  const startedAt = new Map<string, number>();
  return (activity) => {
    const { tool, action } = activity.call;
    const target = relativeToTree(run.workTree, activity.call.target);
    if (activity.phase === "start") {
      startedAt.set(activity.call.id, run.ports.clock.now());
      announce(run, { type: "tool-start", iteration, tool, action, target });
      return;
    }
    const started = startedAt.get(activity.call.id);
    startedAt.delete(activity.call.id);
    emit(run, {
      type: "tool-call",
      iteration,
      tool,
      action,
      target,
      ...(activity.exitCode === undefined ? {} : { exitCode: activity.exitCode }),
      failed: activity.failed,
      durationMs: started === undefined ? 0 : run.ports.clock.now() - started,
    });
  };
}

/** `src/a.ts` for `<tree>/src/a.ts`; anything else (a command, a path outside) as it is. */
function relativeToTree(workTree: string, target: string): string {
  if (!path.isAbsolute(target)) return target;
  const relative = path.relative(workTree, target);
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative)
    ? target
    : relative;
}
