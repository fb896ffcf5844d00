import type { LaunchWrapper } from "./process.js";

/** Runs the registry's validator of that name; a failing check is a value, never a throw. */
export type ValidatorRunner = (
  validatorName: string,
  context: CheckContext,
) => Promise<ValidatorOutcome>;

export interface CheckContext {
  /** The working tree the checks run in. */
  readonly cwd: string;
  readonly agentDir: string;
  readonly checkId: string;
  /** What a caller adds for the check, on top of `processEnv`; closer adds nothing (docs/integrity.md#toolchain). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The environment the check's processes start from: the run's environment
   * for validators (docs/backends.md#environment). Default: the policy applied
   * to closer's own environment, with nothing passed on purpose.
   */
  readonly processEnv?: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** Starts the check's processes inside the run's OS sandbox (docs/sandbox.md), when it is on. */
  readonly sandbox?: LaunchWrapper;
  /** The completion condition's `params` (docs/completion.md#condition-params). */
  readonly conditionParams?: Readonly<Record<string, unknown>>;
}

/** What one validator found. A failing check is data, not an exception. */
export interface ValidatorOutcome {
  readonly validator: string;
  readonly valid: boolean;
  /** Failure pattern when not valid. */
  readonly pattern?: string;
  /** Extracted template params (cut for the prompt by the retry stage, not here). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly durationMs: number;
  readonly command?: string;
  readonly exitCode?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly timedOut?: boolean;
  /**
   * Set when the run's abort stopped the check: no verdict on the work, no failure pattern
   * (docs/loop.md#signals).
   */
  readonly aborted?: boolean;
  /** Set when the failure is the definition's fault (exit 126/127, bad module). */
  readonly configError?: string;
  /** Set when the check failed, then passed on a re-run with the working tree unchanged. */
  readonly flaky?: FlakyCheck;
  /** What the OS sandbox refused the check's processes; such a check failed (docs/sandbox.md#refusals). */
  readonly sandboxRefusals?: readonly string[];
  /** Set when the outcome is the one recorded on the same tree earlier in the run: nothing ran (docs/completion.md#cached-verdicts). */
  readonly cached?: boolean;
}

/** How a flaky check came to pass (docs/completion.md#flaky-checks). */
export interface FlakyCheck {
  /** Runs that failed before the one that passed, the first run included. */
  readonly failures: number;
  /** Re-runs made, the one that passed included. */
  readonly reruns: number;
}
