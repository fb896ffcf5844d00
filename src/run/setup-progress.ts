/**
 * The project's setup as it happens (docs/observe.md#setup-progress): its commands run before
 * the run folder exists, so the run's listener hears each one start and end live, and the
 * `setup` events the record writes when it opens are not handed to it a second time.
 */
import { EVENT_FORMAT_VERSION, type EventListener } from "../ports/events.js";
import type { RunBase } from "./run-base.js";
import type { SetupEventBody } from "./run-setup.js";

/** Hands each setup event to the run's listener as it happens; nothing without a listener. */
export function reportSetupLive(
  base: Pick<RunBase, "onEvent" | "clock">,
  runId: string,
): ((event: SetupEventBody) => void) | undefined {
  const { onEvent, clock } = base;
  if (onEvent === undefined) return undefined;
  return (body) => {
    try {
      onEvent({ v: EVENT_FORMAT_VERSION, at: clock.now(), runId, ...body });
    } catch {
      // A failing display must not stop the setup.
    }
  };
}

/** The run's listener, without the `setup` events it heard live already. */
export function withoutSetupRepeats(onEvent: EventListener | undefined): EventListener | undefined {
  if (onEvent === undefined) return undefined;
  return (event) => {
    if (event.type !== "setup") onEvent(event);
  };
}
