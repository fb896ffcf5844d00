import type { ResolvedAgent } from "../ports/agent.js";
import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import { EVENT_FORMAT_VERSION, type RunEvent, type RunEventBody } from "../ports/events.js";
import type { LoopPorts } from "../ports/loop-ports.js";
import type { PluginHost } from "../ports/plugin-host.js";
import type { RunState } from "../ports/run-state.js";
import type { VerdictCache } from "../validators/verdict-cache.js";

/**
 * Everything one run works with. All of it is fixed when the run starts
 * except `state`, the run's progress, which the loop replaces as it goes
 * and which is saved as run.json.
 */
export interface RunContext {
  readonly agent: ResolvedAgent;
  readonly ports: LoopPorts;
  /** The caller's plugins: their hooks are called at the loop's seams (docs/plugins.md#hooks). */
  readonly plugins: PluginHost;
  /** The working tree the model works in and the checks run in (absolute). */
  readonly workTree: string;
  readonly runId: string;
  readonly runDir: string;
  readonly signal: AbortSignal;
  /** Absolute path of the decision file. */
  readonly decisionPath: string;
  readonly systemPrompt?: string;
  readonly externalConditions: readonly ExternalCondition[];
  readonly beforeChecks?: (declaration: Declaration) => Promise<void>;
  /** Clock time this process started (or resumed) the run: the wall-time budget counts from here. */
  readonly startedAtMs: number;
  /** The checks' outcomes on the trees this process checked (docs/completion.md#cached-verdicts). */
  readonly verdicts: VerdictCache;
  state: RunState;
  /** The last run.json write (see `saveState`). */
  stateWritten: Promise<void>;
  /** The baseline's checks while they run beside the first query (docs/integrity.md#baseline). */
  baselineChecks?: BaselineChecks;
  /** The last iteration's diff while it is read and kept beside the next query (docs/record.md#diffs). */
  diffKept?: Promise<void>;
}

/** The baseline's checks under way beside the first query, in the clean room. */
export interface BaselineChecks {
  /** Resolves once they ended and the baseline is kept: to why a check cannot run, if one cannot. */
  readonly ended: Promise<string | undefined>;
  /** Aborted when a check cannot run (or the checks failed): the query under way stops. */
  readonly stopped: AbortSignal;
  /**
   * Stops the checks of a run that ended before it needed them: nothing is kept, and `ended`
   * resolves once they stopped (docs/integrity.md#baseline-beside-query).
   */
  cancel(): void;
}

/**
 * Records an event and hands it to the listener. The loop does not wait for
 * the write: the record keeps the order, and a failed write surfaces at the
 * next `saveState` (see RecordSink).
 */
export function emit(run: RunContext, body: RunEventBody): void {
  keep(emitWritten(run, body));
}

/** Records an event and resolves once it is written (for the last event of a run). */
export function emitWritten(run: RunContext, body: RunEventBody): Promise<void> {
  const event = stamped(run, body);
  const written = run.ports.record.emit(event);
  tell(run, event);
  run.plugins.deliver(event);
  return written;
}

/**
 * Hands an event to the listener without recording it: a moment the record does not
 * keep, such as a tool call starting (docs/observe.md#tool-calls).
 */
export function announce(run: RunContext, body: RunEventBody): void {
  tell(run, stamped(run, body));
}

function stamped(run: RunContext, body: RunEventBody): RunEvent {
  return { v: EVENT_FORMAT_VERSION, at: run.ports.clock.now(), runId: run.runId, ...body };
}

function tell(run: RunContext, event: RunEvent): void {
  try {
    run.ports.listener?.(event);
  } catch {
    // A failing display must not end the run; the event is in the record.
  }
}

/** What a `prompt` event says the prompt was for. */
export type PromptKind = Extract<RunEventBody, { type: "prompt" }>["kind"];

/**
 * Keeps a prompt's text in the record (an extra query of the iteration under
 * its `label`: `iteration-007-completion.md`) and says it is sent: a `prompt` event.
 */
export function recordPrompt(
  run: RunContext,
  sent: {
    readonly iteration: number;
    readonly step: string;
    readonly prompt: { readonly text: string; readonly templatePath: string };
    readonly kind: PromptKind;
    readonly label?: string;
  },
): void {
  const { iteration, step, prompt, kind, label } = sent;
  keep(run.ports.record.savePrompt(iteration, prompt.text, label));
  emit(run, {
    type: "prompt",
    iteration,
    step,
    templatePath: prompt.templatePath,
    kind,
    chars: prompt.text.length,
  });
}

/** Hands a prompt or transcript to the record without waiting for it (like `emit`). */
export function keep(write: Promise<void>): void {
  write.catch(() => undefined);
}

/** Replaces part of the run state (in memory; `saveState` writes it). */
export function updateState(run: RunContext, change: Partial<RunState>): void {
  run.state = { ...run.state, ...change };
}

/**
 * Starts writing run.json (atomically; see `createRunRecord` for when it is
 * synced to the disk). `waitForState` is called before the next backend
 * query, so an iteration's state is written before the next one sends
 * anything (rule 7).
 */
export function saveState(run: RunContext): void {
  run.state = { ...run.state, updatedAt: isoTime(run) };
  const written = run.ports.record.saveState(run.state);
  keep(written);
  run.stateWritten = written;
}

/**
 * Resolves once the last run.json write is on disk; rejects if it failed, or
 * if any write of the record failed since: a run whose record cannot be
 * written sends no further query (docs/record.md#record-failure).
 */
export async function waitForState(run: RunContext): Promise<void> {
  await run.stateWritten;
  await run.ports.record.flush?.();
}

export function isoTime(run: RunContext): string {
  return new Date(run.ports.clock.now()).toISOString();
}

/** Adds a warning to the run state and the event stream. */
export function warn(run: RunContext, iteration: number, message: string): void {
  updateState(run, { warnings: [...run.state.warnings, message] });
  emit(run, { type: "warning", iteration, message });
}
