import type { EventListener, RunEvent } from "../ports/events.js";
import type { Redactor } from "../record/secret-redactor.js";
import { formatUsd, type ShownRunEnd } from "../run/outcome-report.js";
import { baselineLine, findingsOf, seconds, setupLine, testsRun } from "./progress-check-lines.js";
import { DEFAULT_HEARTBEAT_MS, makeStatus } from "./progress-status.js";
import { toolCallLine } from "./progress-tool-line.js";
import { followUnderWay } from "./progress-under-way.js";

const ANSI = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39] };
type Style = keyof typeof ANSI;

function styled(style: Style, text: string): string {
  const [on, off] = ANSI[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}

export interface ProgressOptions {
  readonly write: (text: string) => void;
  /** Live status line while the backend works (an interactive terminal). */
  readonly live: boolean;
  readonly color: boolean;
  readonly verbose: boolean;
  /** Nothing but the run's end (`--quiet`): the caller prints that. */
  readonly quiet?: boolean;
  /** Without a terminal: the longest silence while something works (default 60 s). */
  readonly heartbeatMs?: number;
  /** Injected for tests; defaults to Date.now. */
  readonly now?: () => number;
  /** Applied to every text before it is written: the run record's redactor (docs/record.md#secrets). */
  readonly redact?: Redactor;
}

/** Whether to colour: an interactive terminal, and NO_COLOR unset (https://no-color.org). */
export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

/** The progress listener; `shownEnd` tells whether (and how) it has shown the run's end. */
export type ProgressReporter = EventListener & {
  stop(): void;
  shownEnd(): ShownRunEnd | undefined;
};

/**
 * Turns run events into lines on stderr: one line per event and per tool call of the
 * model, and what is under way kept in view (docs/observe.md#live-view): a status line
 * in a terminal, a heartbeat line otherwise.
 */
export function makeProgressReporter(settings: ProgressOptions): ProgressReporter {
  const { redact } = settings;
  const options: ProgressOptions =
    redact === undefined
      ? settings
      : { ...settings, write: (text) => settings.write(redact(text)) };
  const paint = (style: Style, text: string) => (options.color ? styled(style, text) : text);
  const now = options.now ?? Date.now;
  const status = makeStatus({
    write: options.write,
    live: options.live,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    paint: (text) => paint("dim", text),
  });
  let totalCostUsd = 0;
  let shownEnd: ShownRunEnd | undefined;
  const underWay = followUnderWay(status, { now, costSoFarUsd: () => totalCostUsd });
  const style: LineStyle = { paint, verbose: options.verbose, live: options.live };
  const listener = (event: RunEvent) => {
    if (event.type === "backend-end") totalCostUsd = event.totalCostUsd;
    if (options.quiet === true) return;
    if (event.type === "run-end") shownEnd = { success: event.success, reason: event.reason };
    const text =
      event.type === "tool-call"
        ? toolCallLine(event, paint, seconds)
        : (queryLine(event, style) ?? verdictLine(event, style));
    underWay.ended(event);
    if (text !== undefined) status.line(text);
    underWay.started(event);
  };
  return Object.assign(listener, { stop: status.stop, shownEnd: () => shownEnd });
}

interface LineStyle {
  readonly paint: (style: Style, text: string) => string;
  readonly verbose: boolean;
  readonly live: boolean;
}

/** The line of an event of the query: the run, the iteration, its prompt and the backend. */
function queryLine(event: RunEvent, { paint, verbose, live }: LineStyle): string | undefined {
  switch (event.type) {
    case "run-start":
      return `${paint("bold", "closer")} ${event.agent} · ${event.task} · up to ${event.maxIterations} iterations${event.resumed ? " (resumed)" : ""}`;
    case "baseline":
      return baselineLine(event, paint);
    case "setup-start":
      return `  setup ${event.command} … ${paint("dim", `(${event.index}/${event.count})`)}`;
    case "setup":
      return setupLine(event, paint);
    case "definition-snapshot":
      return verbose
        ? paint("dim", `  definition: ${event.files} files, sha256 ${event.hash.slice(0, 12)}`)
        : undefined;
    case "definition-reloaded":
      return paint(
        "yellow",
        `  definition reloaded: sha256 ${event.previousHash.slice(0, 12)} → ${event.hash.slice(0, 12)} (${event.files} files)`,
      );
    case "plugins":
      return paint("dim", `  plugins: ${event.plugins.map((plugin) => plugin.name).join(", ")}`);
    case "iteration-start":
      return paint("bold", `▸ iteration ${event.iteration} · step ${event.step}`);
    case "prompt":
      return verbose || event.kind !== "step"
        ? paint("dim", `  prompt (${event.kind}) ${event.templatePath}, ${event.chars} chars`)
        : undefined;
    case "backend-start":
      return live ? undefined : `  backend ${event.backend} working…`;
    case "validator-start":
      return live ? undefined : paint("dim", `  checking ${event.validator}…`);
    case "backend-end": {
      const outcome = event.error
        ? paint("red", `${event.error.kind}: ${event.error.message}`)
        : event.hasStructuredOutput
          ? "structured output"
          : "text only";
      // A step prompt's query needs no label; a retry, a review or a repeat says why it was sent.
      const why =
        event.reason === undefined || event.reason === "initial" || event.reason === "continuation"
          ? ""
          : ` · ${event.reason}`;
      return `  backend ${seconds(event.durationMs)} · ${formatUsd(event.costUsd)} (total ${formatUsd(event.totalCostUsd)}) · ${outcome}${why}`;
    }
    case "backend-wait":
      return paint(
        "yellow",
        `  waiting ${seconds(event.waitMs)} (${event.reason}, attempt ${event.attempt})`,
      );
    default:
      return undefined;
  }
}

/** The line of an event of the verdict: the declaration, the checks, the retry, the end. */
function verdictLine(event: RunEvent, { paint, verbose }: LineStyle): string | undefined {
  switch (event.type) {
    case "completion-signal":
      if (event.declared) return `  declared done${declaredWith(event.status, event.action)}`;
      return verbose ? paint("dim", "  no completion declared") : undefined;
    case "decision": {
      const color =
        event.decision === "complete" ? "green" : event.decision === "blocked" ? "red" : "yellow";
      const blocked = event.blockedReason ? ` · ${firstLine(event.blockedReason)}` : "";
      return `  decision ${paint(color, event.decision)} from ${event.source}${event.stale ? " (stale)" : ""}${event.reason ? ` · ${event.reason}` : ""}${blocked}`;
    }
    case "format-check":
      return event.valid ? undefined : paint("yellow", `  format ✗ ${event.error ?? ""}`);
    case "validator-end": {
      const mark = event.valid ? paint("green", "✓") : paint("red", "✗");
      const detail = event.aborted
        ? " stopped (the run was aborted)"
        : event.timedOut
          ? " timed out"
          : event.configError
            ? ` ${event.configError}`
            : findingsOf(event.params);
      const took = event.cached ? "cached" : seconds(event.durationMs);
      return `  ${mark} ${event.validator}${testsRun(event)} ${paint("dim", took)}${detail}`;
    }
    case "guard":
      return event.valid ? undefined : paint("red", `  ✗ ${event.guard}: ${event.detail ?? ""}`);
    case "declaration-refuted":
      return paint(
        "yellow",
        [
          `  declaration refuted by ${event.failed} (${event.refutedDeclarations} so far)`,
          ...(event.claims ?? []).map((claim) => `    ${claim}`),
        ].join("\n"),
      );
    case "closure-review":
      return `  review (${event.session} session, ${formatUsd(event.costUsd)}): ${event.allComplete ? paint("green", "all complete") : paint("yellow", `${event.pendingActions.length} pending`)}`;
    case "retry-select":
      return paint(
        "yellow",
        `  ↻ retry with ${event.pattern} (attempt ${event.attempt}/${event.maxAttempts}) ${paint("dim", event.templatePath)}`,
      );
    case "budget":
      return event.exhausted ? paint("red", `  budget exhausted (${event.exhausted})`) : undefined;
    case "warning":
      return paint("yellow", `  warning: ${event.message}`);
    case "plugin-error":
      return paint(
        event.endsRun ? "red" : "yellow",
        `  plugin "${event.plugin}" failed in ${event.where}: ${firstLine(event.message)}${event.endsRun ? "" : " (the run goes on)"}`,
      );
    case "boundary-attempt":
      return paint("yellow", `  refused: ${event.command} (closer performs GitHub side effects)`);
    case "side-effect":
      return `  ${event.ok ? "✓" : "✗"} ${event.action} ${event.target}${event.detail ? ` · ${event.detail}` : ""}`;
    case "run-end": {
      const verdict = paint(event.success ? "green" : "red", event.status);
      return `${paint("bold", "■")} ${verdict} after ${event.iterations} iteration(s) · ${formatUsd(event.costUsd)} · ${firstLine(event.reason)}`;
    }
    default:
      return undefined;
  }
}
/** `(status completed, action complete)`, or nothing when neither was given. */
function declaredWith(status: string | undefined, action: string | undefined): string {
  const parts = [status && `status ${status}`, action && `action ${action}`].filter(Boolean);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** A reason's first line; the whole of it is in the record (and was shown as it happened). */
function firstLine(text: string): string {
  const [first = "", ...rest] = text.split("\n");
  return rest.some((line) => line.trim() !== "") ? `${first} …` : first;
}
