import type { RunEvent } from "../ports/events.js";
import type { LogEntry } from "../ports/plugin.js";

/** The line a plugin's logger gets for an event, or none for the event's small steps (docs/plugins.md#ports). */
export function logEntryOf(event: RunEvent): LogEntry | undefined {
  const line = lineOf(event);
  return line === undefined ? undefined : { level: line[0], message: line[1], event };
}

function lineOf(event: RunEvent): [LogEntry["level"], string] | undefined {
  switch (event.type) {
    case "run-start":
      return [
        "info",
        `run ${event.runId} of ${event.agent}: ${event.task}${event.resumed ? " (resumed)" : ""}`,
      ];
    case "iteration-start":
      return ["info", `iteration ${event.iteration} · step ${event.step}`];
    case "validator-end":
      return event.valid
        ? ["info", `check ${event.validator} passed`]
        : ["warn", `check ${event.validator} failed${event.pattern ? ` (${event.pattern})` : ""}`];
    case "declaration-refuted":
      return ["warn", `declaration refuted by ${event.failed}: ${event.detail}`];
    case "retry-select":
      return [
        "info",
        `retry with ${event.pattern} (attempt ${event.attempt}/${event.maxAttempts})`,
      ];
    case "warning":
      return ["warn", event.message];
    case "plugin-error":
      return [
        event.endsRun ? "error" : "warn",
        `plugin "${event.plugin}" failed in ${event.where}: ${event.message}`,
      ];
    case "side-effect":
      return [
        event.ok ? "info" : "warn",
        `${event.action} ${event.target}${event.ok ? "" : " failed"}`,
      ];
    case "run-end":
      return [
        event.success ? "info" : event.status === "error" ? "error" : "warn",
        `run ended ${event.status} after ${event.iterations} iteration(s): ${event.reason}`,
      ];
    default:
      return undefined;
  }
}
