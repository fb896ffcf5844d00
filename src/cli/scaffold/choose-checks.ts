import {
  CHECK_ROLES,
  type ProjectCheck,
  type ProjectFindings,
  type SkippedCheck,
} from "./project-check.js";

/** What the scaffolded agent checks, and what it leaves out. */
export interface ChosenChecks {
  /** At most one per role, in the order of CHECK_ROLES. */
  readonly chosen: readonly ProjectCheck[];
  readonly skipped: readonly SkippedCheck[];
}

/**
 * The first candidate of each role; `testCommand` (from `--test-command`) wins over every
 * detected test. Findings are read from `parseTestOutput`, which knows the common runners.
 */
export function chooseChecks(findings: ProjectFindings, testCommand?: string): ChosenChecks {
  const candidates: ProjectCheck[] = [];
  if (testCommand !== undefined) {
    candidates.push({
      role: "test",
      command: testCommand,
      source: "--test-command",
      parser: "parseTestOutput",
    });
  }
  candidates.push(...findings.checks);
  const byRole = new Map<ProjectCheck["role"], ProjectCheck>();
  const skipped: SkippedCheck[] = [...findings.skipped];
  for (const check of candidates) {
    const taken = byRole.get(check.role);
    if (taken === undefined) {
      byRole.set(check.role, check);
      continue;
    }
    skipped.push({
      what: `${check.command} (${check.source})`,
      why: `the ${check.role} check is already ${taken.command} (${taken.source})`,
    });
  }
  const chosen = CHECK_ROLES.flatMap((role) => {
    const check = byRole.get(role);
    return check === undefined ? [] : [check];
  });
  return { chosen, skipped };
}
