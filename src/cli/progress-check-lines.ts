/** The lines of progress about the checks: a setup command, the baseline, what a failed check found. */
import type { RunEventOf } from "../ports/events.js";
import { meaningfulLines } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { countTests, parseTestInventory } from "../tool-output/test-inventory.js";

type Paint = (style: "green" | "red" | "dim", text: string) => string;

export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

/** The names a failed check found (failed tests, dirty files, errors), in a few words. */
export function findingsOf(params: Record<string, unknown>): string {
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

/**
 * How a setup command ended (docs/observe.md#setup-progress): its exit and time, and for a
 * failure the first of its meaningful lines (docs/completion.md#quoted-output).
 */
export function setupLine(event: RunEventOf<"setup">, paint: Paint): string {
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
export function baselineLine(event: RunEventOf<"baseline">, paint: Paint): string {
  const checks = event.checks.map(({ validator, valid, tests, testRunner }) => {
    const mark = valid ? paint("green", "✓") : paint("red", "✗");
    return `${mark} ${validator}${testsShown(tests, testRunner)}`;
  });
  const dirty = event.dirtyFiles.length === 0 ? "" : ` · ${event.dirtyFiles.length} files dirty`;
  return `  baseline ${paint("dim", seconds(event.durationMs))} ${checks.join(" ")}${dirty} · ${event.protectedFiles} protected`;
}

/** The tests a check's output counts (docs/completion.md#test-inventory), as the baseline line shows them. */
export function testsRun(event: RunEventOf<"validator-end">): string {
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
