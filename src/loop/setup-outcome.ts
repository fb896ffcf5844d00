/**
 * The project's setup as the run records it (docs/definition.md#setup): closer ran its
 * commands in the tree before the run started, and a failed one ends the run before the
 * baseline and any query.
 */
import type { RunEventOf } from "../ports/events.js";
import { meaningfulLines } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { emit, type RunContext } from "./run-context.js";
import { failed, type Terminal } from "./terminal-state.js";

/** One setup command's outcome: its `setup` event without the type. */
export type SetupOutcome = Omit<RunEventOf<"setup">, "type" | "v" | "at" | "runId">;

/** Lines of a failed command's output its error quotes. */
const QUOTED_LINES = 20;

/** One `setup` event per command that ran. */
export function recordSetup(run: RunContext, outcomes: readonly SetupOutcome[]): void {
  for (const outcome of outcomes) emit(run, { type: "setup", ...outcome });
}

/** The end of a run whose setup failed: `config_error`, naming the command, its exit and output. */
export function setupFailure(outcomes: readonly SetupOutcome[]): Terminal | undefined {
  const failure = outcomes.find((outcome) => outcome.exitCode !== 0 || outcome.timedOut === true);
  if (failure === undefined) return undefined;
  const how =
    failure.timedOut === true
      ? `timed out after ${Math.round(failure.durationMs / 1000)} s`
      : `exited ${failure.exitCode}`;
  // Its meaningful lines: the errors, not the package manager's banner or log trailer
  // (docs/completion.md#quoted-output).
  const output = meaningfulLines(
    joinOutput(failure.stdout ?? "", failure.stderr ?? ""),
    QUOTED_LINES,
  ).join("\n");
  return failed(
    "config_error",
    [
      `setup failed: \`${failure.command}\` ${how} in the run's tree, before any query`,
      ...(output === "" ? [] : [output]),
      "fix: fix runner.setup in agent.json or the project's install",
    ].join("\n"),
  );
}
