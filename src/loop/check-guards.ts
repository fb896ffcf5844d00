import type { CompletionCheck } from "../completion/judge-outcomes.js";
import { protectedChangedFailure, testsRemovedFailure } from "../integrity/guards.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { ProtectedFingerprint } from "../ports/files.js";
import { decideFailure, outcomeFailures } from "../retry/other-failures.js";
import { guardGitState } from "./guard-git-state.js";
import { emit, type RunContext } from "./run-context.js";
import type { Turn } from "./start-iteration.js";

/**
 * The integrity guards (docs/integrity.md#guards), after the validators of a
 * declaration ran: the git state put back (the validators ran the model's code;
 * docs/integrity.md#git-state), `protected-changed` compares the protected paths (hashed
 * while the validators ran) with the baseline, `tests-removed` the test
 * validators' inventories. Each is recorded as a `guard` event. Returns the failure that
 * decides the check: a changed protected path over anything a validator says (the
 * validators' verdict cannot be trusted), then a changed git state, removed tests when the
 * validators passed. The failing validators and the other guards that failed ride along as its
 * `others` (docs/retry.md#also-found).
 */
export async function checkGuards(
  run: RunContext,
  turn: Turn,
  found: {
    readonly validation: CompletionCheck;
    readonly protectedNow: Promise<ProtectedFingerprint>;
  },
): Promise<CheckFailure | undefined> {
  const { validation } = found;
  // The checks ran the model's code: put back before closer's own git reads the changes again.
  const gitChanged = await guardGitState(run, turn.iteration, "the checks");
  const { baseline } = run.state;
  // The validators ran whatever a guard finds: their failures are told in the same retry.
  const failing = outcomeFailures(validation.outcomes);
  if (baseline === undefined) {
    return gitChanged === undefined ? undefined : decideFailure([gitChanged, ...failing]);
  }
  const now = await found.protectedNow;
  const protectedChanged = protectedChangedFailure(baseline.protectedFiles, now);
  const testsRemoved = testsRemovedFailure(
    baseline,
    validation.outcomes,
    testValidators(run.agent),
  );
  for (const [guard, failure] of [
    ["protected-changed", protectedChanged],
    ["tests-removed", testsRemoved],
  ] as const) {
    emit(run, {
      type: "guard",
      iteration: turn.iteration,
      guard,
      valid: failure === undefined,
      ...(failure === undefined ? {} : { detail: failure.detail, params: { ...failure.params } }),
    });
  }
  const guards = [protectedChanged, gitChanged, validation.valid ? testsRemoved : undefined];
  if (guards.every((failure) => failure === undefined)) return undefined;
  return decideFailure([...guards, ...failing]);
}

/** Validators that run tests: their output must show tests that ran. */
function testValidators(agent: ResolvedAgent): ReadonlySet<string> {
  const names = Object.values(agent.registry.validators)
    .filter((validator) => validator.type === "command")
    .filter((validator) => Object.values(validator.extractParams).includes("parseTestOutput"))
    .map((validator) => validator.name);
  return new Set(names);
}
