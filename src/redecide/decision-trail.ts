/**
 * A run's events reduced to its decisions (docs/replay.md#what-is-compared):
 * per iteration, what closer read and chose; and how the run ended. Times,
 * costs, paths and ids are not decisions, nor are a resumed run's attempt
 * boundaries (the intermediate `run-start`, `abort` and `run-end`, the
 * interrupted query).
 */
import { isPlainObject } from "../plain-object.js";

/** One decision: where it was made, what it is about, and what was decided. */
export interface TrailEntry {
  /** The iteration, or `end` for the terminal state. */
  readonly iteration: number | "end";
  readonly what: string;
  readonly value: string;
}

type Event = Readonly<Record<string, unknown>>;

/** The decisions of a run's events (as recorded, or as the replay emitted them), in order. */
export function decisionTrail(runEvents: readonly object[]): TrailEntry[] {
  const events = runEvents as readonly Event[];
  const entries: TrailEntry[] = [];
  for (const event of events) {
    const iteration = typeof event.iteration === "number" ? event.iteration : 0;
    const add = (what: string, value: unknown) =>
      entries.push({ iteration, what, value: String(value ?? "") });
    switch (event.type) {
      case "prompt":
        add("prompt kind", event.kind);
        add("prompt template", event.templatePath);
        break;
      case "decision":
        add("decision", event.decision);
        add("decision source", event.source);
        if (event.blockedReason !== undefined) add("blocked reason", event.blockedReason);
        break;
      case "format-check":
        add("format", event.valid === true ? "valid" : "invalid");
        break;
      case "validator-end":
        add(`validator ${String(event.validator)}`, verdictOf(event));
        break;
      case "guard":
        add(`guard ${String(event.guard)}`, event.valid === true ? "passed" : "failed");
        break;
      case "declaration-refuted":
        add("refuted declaration", event.pattern);
        break;
      case "closure-review":
        add("closure review", event.allComplete === true ? "approved" : "rejected");
        break;
      case "retry-select":
        add("retry pattern", event.pattern);
        add("retry template", event.templatePath);
        add("retry attempt", `${String(event.attempt)}/${String(event.maxAttempts)}`);
        break;
      case "budget":
        if (event.exhausted !== undefined) add("budget exhausted", event.exhausted);
        break;
      case "backend-end": {
        const error = isPlainObject(event.error) ? event.error : undefined;
        // An aborted query is the run's abort (or an attempt's end), decided elsewhere.
        if (error !== undefined && error.kind !== "aborted") add("query error", error.kind);
        break;
      }
      default:
        break;
    }
  }
  const end = events.findLast((event) => event.type === "run-end");
  if (end !== undefined) {
    entries.push({ iteration: "end", what: "terminal state", value: String(end.status) });
  }
  return entries;
}

function verdictOf(event: Event): string {
  if (event.aborted === true) return "aborted";
  if (event.valid === true) return "passed";
  return event.pattern === undefined ? "failed" : `failed (${String(event.pattern)})`;
}
