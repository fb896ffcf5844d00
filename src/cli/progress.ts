import type { EventListener, RunEvent, RunEventOf } from "../ports/events.js";
import type { Redactor } from "../record/secret-redactor.js";
import { formatUsd, type ShownRunEnd } from "../run/outcome-report.js";
import { meaningfulLines } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { countTests, parseTestInventory } from "../tool-output/test-inventory.js";

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
  /** Injected for tests; defaults to Date.now. */
  readonly now?: () => number;
  /** Applied to every text before it is written: the run record's redactor (docs/record.md#secrets). */
  readonly redact?: Redactor;
}

/** Whether to colour: an interactive terminal, and NO_COLOR unset (https://no-color.org). */
export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

/** The names a failed check found (failed tests, dirty files, errors), in a few words. */
function findingsOf(params: Record<string, unknown>): string {
  const names: string[] = [];
  for (const value of Object.values(params)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (typeof item === "string") names.push(item);
      else if (item && typeof item === "object" && "name" in item) names.push(String(item.name));
      else if (item && typeof item === "object" && "file" in item) names.push(String(item.file));
    }
  }
  if (names.length === 0) return "";
  const shown = names.slice(0, 3).join(", ");
  return ` · ${shown}${names.length > 3 ? ` and ${names.length - 3} more` : ""}`;
}

/** The progress listener; `shownEnd` tells whether (and how) it has shown the run's end. */
export type ProgressReporter = EventListener & {
  stop(): void;
  shownEnd(): ShownRunEnd | undefined;
};

/**
 * Turns run events into lines on stderr: one line per event, plus (in a
 * terminal) a status line that ticks while the backend is working.
 */
export function makeProgressReporter(settings: ProgressOptions): ProgressReporter {
  const { redact } = settings;
  const options: ProgressOptions =
    redact === undefined
      ? settings
      : { ...settings, write: (text) => settings.write(redact(text)) };
  const paint = (style: Style, text: string) => (options.color ? styled(style, text) : text);
  const now = options.now ?? Date.now;
  let ticker: NodeJS.Timeout | undefined;
  let totalCostUsd = 0;
  let shownEnd: ShownRunEnd | undefined;

  const clearLive = () => {
    if (ticker === undefined) return;
    clearInterval(ticker);
    ticker = undefined;
    options.write("\r\x1b[2K");
  };
  const line = (text: string) => {
    clearLive();
    options.write(`${text}\n`);
  };
  /** A status line that redraws itself until the next line is written. */
  const startLive = (text: () => string) => {
    if (!options.live) return;
    clearLive();
    const draw = () => options.write(`\r\x1b[2K${paint("dim", text())}`);
    draw();
    ticker = setInterval(draw, 250);
    ticker.unref();
  };

  const style: LineStyle = { paint, verbose: options.verbose, live: options.live };
  const listener = (event: RunEvent) => {
    if (event.type === "backend-end") totalCostUsd = event.totalCostUsd;
    if (event.type === "run-end") shownEnd = { success: event.success, reason: event.reason };
    const text = queryLine(event, style) ?? verdictLine(event, style);
    if (text !== undefined) line(text);
    if (event.type === "backend-start") {
      const label = `${event.backend}${event.model ? ` (${event.model})` : ""} working`;
      const startedAt = now();
      startLive(
        () => `  … ${label} ${seconds(now() - startedAt)} · ${formatUsd(totalCostUsd)} so far`,
      );
    }
    if (event.type === "setup-start") {
      const startedAt = now();
      startLive(() => `  … setup ${event.command} ${seconds(now() - startedAt)}`);
    }
    if (event.type === "backend-wait") {
      const until = now() + event.waitMs;
      startLive(() => `  … next try in ${seconds(Math.max(0, until - now()))} (${event.reason})`);
    }
  };
  return Object.assign(listener, { stop: clearLive, shownEnd: () => shownEnd });
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

/**
 * How a setup command ended (docs/observe.md#setup-progress): its exit and time, and for a
 * failure the first of its meaningful lines (docs/completion.md#quoted-output).
 */
function setupLine(event: RunEventOf<"setup">, paint: LineStyle["paint"]): string {
  const failed = event.exitCode !== 0 || event.timedOut === true;
  const mark = failed ? paint("red", "✗") : paint("green", "✓");
  const how = event.timedOut ? " timed out" : failed ? ` exit ${event.exitCode}` : "";
  const [said] = failed
    ? meaningfulLines(joinOutput(event.stdout ?? "", event.stderr ?? ""), 1)
    : [];
  const quoted = said === undefined ? "" : ` · ${said}`;
  return `  setup ${event.command} ${mark}${how} ${paint("dim", seconds(event.durationMs))}${quoted}`;
}

/** What the checks found on the untouched tree (docs/integrity.md#baseline). */
function baselineLine(event: RunEventOf<"baseline">, paint: LineStyle["paint"]): string {
  const checks = event.checks.map(({ validator, valid, tests, testRunner }) => {
    const mark = valid ? paint("green", "✓") : paint("red", "✗");
    return `${mark} ${validator}${testsShown(tests, testRunner)}`;
  });
  const dirty = event.dirtyFiles.length === 0 ? "" : ` · ${event.dirtyFiles.length} files dirty`;
  return `  baseline ${paint("dim", seconds(event.durationMs))} ${checks.join(" ")}${dirty} · ${event.protectedFiles} protected`;
}

/** The tests a check's output counts (docs/completion.md#test-inventory), as the baseline line shows them. */
function testsRun(event: RunEventOf<"validator-end">): string {
  if (event.stdout === undefined && event.stderr === undefined) return "";
  const inventory = parseTestInventory(joinOutput(event.stdout ?? "", event.stderr ?? ""));
  if (inventory === undefined) return "";
  const tests = countTests(inventory);
  return testsShown(tests, tests === undefined ? inventory.runner : undefined);
}

/** ` (2 tests)`; ` (go: tests not counted)` when the runner's output does not say how many. */
function testsShown(tests: number | undefined, testRunner: string | undefined): string {
  if (tests !== undefined) return ` (${tests} ${tests === 1 ? "test" : "tests"})`;
  return testRunner === undefined ? "" : ` (${testRunner}: tests not counted)`;
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
