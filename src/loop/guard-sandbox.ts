import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import { emit, type RunContext } from "./run-context.js";

/**
 * `sandbox-refused` (docs/sandbox.md#refusals): after every query, what the
 * OS sandbox refused the backend's processes (a write outside the places
 * the model may write, a connection to a host it was not given) is recorded
 * and fails the iteration, so no declaration made while trying it completes
 * the run; the retry prompt names each refusal.
 */
export async function guardSandbox(
  run: RunContext,
  iteration: number,
): Promise<CheckFailure | undefined> {
  const refusals = (await run.ports.sandbox?.takeRefusals("backend")) ?? [];
  if (refusals.length === 0) return undefined;
  recordRefusals(run, { iteration, kind: "backend", refusals });
  const name = BUILTIN_PATTERN_NAMES.sandboxRefused;
  const detail = `the OS sandbox refused ${refusals.length} write(s) or connection(s): ${refusals.slice(0, 3).join("; ")}`;
  emit(run, {
    type: "guard",
    iteration,
    guard: name,
    valid: false,
    detail,
    params: { refusals },
  });
  return { kind: "guard", name, pattern: name, params: { refusals }, detail };
}

/** A `sandbox-refused` event, counted in run.json's `sandbox.refusals`. */
export function recordRefusals(
  run: RunContext,
  refused: {
    readonly iteration: number;
    readonly kind: "backend" | "validators";
    readonly refusals: readonly string[];
    readonly validator?: string;
  },
): void {
  const { sandbox } = run.state;
  if (sandbox !== undefined) {
    const refusals = (sandbox.refusals ?? 0) + refused.refusals.length;
    run.state = { ...run.state, sandbox: { ...sandbox, refusals } };
  }
  emit(run, { type: "sandbox-refused", ...refused, refusals: [...refused.refusals] });
}
