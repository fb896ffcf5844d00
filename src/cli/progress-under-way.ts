/**
 * What is under way, as the run's events tell it, kept on the status (docs/observe.md#live-view):
 * the query with its time, cost and the tool call it is making, a check, the baseline's checks, a
 * setup command, a wait before a repeat.
 */

import { toolCallText } from "../observe/tool-call-text.js";
import type { RunEvent } from "../ports/events.js";
import { formatUsd } from "../run/outcome-report.js";
import { seconds } from "./progress-check-lines.js";
import type { Status } from "./progress-status.js";

/** Events after which nothing the status line showed is under way any more. */
const ENDS_WHAT_IS_UNDER_WAY: ReadonlySet<RunEvent["type"]> = new Set([
  "backend-end",
  "baseline",
  "setup",
  "validator-end",
  "run-end",
]);

export interface UnderWay {
  /** Before an event's line is written: forgets what it ended. */
  ended(event: RunEvent): void;
  /** After it: shows what it started. */
  started(event: RunEvent): void;
}

export function followUnderWay(
  status: Status,
  clock: { readonly now: () => number; readonly costSoFarUsd: () => number },
): UnderWay {
  const { now } = clock;
  let query: { label: string; startedAt: number } | undefined;
  let tool: { text: string; startedAt: number } | undefined;
  const since = (startedAt: number) => seconds(now() - startedAt);
  const queryStatus = () => {
    if (query === undefined) return "";
    const working = `  … ${query.label} ${since(query.startedAt)} · ${formatUsd(clock.costSoFarUsd())} so far`;
    return tool === undefined ? working : `${working} · ${tool.text} ${since(tool.startedAt)}`;
  };
  const until = (text: string) => {
    const startedAt = now();
    return () => `  … ${text} ${since(startedAt)}`;
  };
  return {
    ended(event) {
      if (event.type === "tool-call") tool = undefined;
      // The baseline's checks may end while the first query runs (docs/integrity.md#baseline).
      const besideQuery = event.type === "baseline" && query !== undefined;
      if (!ENDS_WHAT_IS_UNDER_WAY.has(event.type) || besideQuery) return;
      query = undefined;
      tool = undefined;
      status.show(undefined);
    },
    started(event) {
      switch (event.type) {
        case "backend-start":
          query = {
            label: `${event.backend}${event.model ? ` (${event.model})` : ""} working`,
            startedAt: now(),
          };
          status.show(queryStatus);
          break;
        case "tool-start":
          tool = { text: toolCallText(event), startedAt: now() };
          break;
        case "setup-start":
          status.show(until(`setup ${event.command}`));
          break;
        case "validator-start":
          status.show(until(`checking ${event.validator}`));
          break;
        case "baseline-start":
          status.show(until(`baseline: checking ${event.validators.join(", ")}`));
          break;
        case "backend-wait": {
          const waitEnd = now() + event.waitMs;
          status.show(
            () => `  … next try in ${seconds(Math.max(0, waitEnd - now()))} (${event.reason})`,
          );
          break;
        }
        default:
          break;
      }
    },
  };
}
