/**
 * `closer init --with-evidence` (docs/cli.md#init-evidence): the answer also
 * reports on each check, as the original design's completion schema does —
 * `validation` booleans and `evidence` outputs — named so closer reads each
 * claim against its own check (docs/completion.md#claims).
 */
import { ROLE_SCAFFOLD, type ScaffoldPlan } from "./scaffold-plan.js";

/** A claim's key for a validator: `tests-pass` → `tests`, `type-check` → `type_check`. */
function claimWord(validator: string): string {
  return validator.replace(/-pass$/, "").replaceAll("-", "_");
}

/** The validators the agent checks, git-clean first, as claim words. */
function claimWords(plan: ScaffoldPlan): string[] {
  return [
    "git_clean",
    ...plan.checks.map((check) => claimWord(ROLE_SCAFFOLD[check.role].validator)),
  ];
}

/** The `validation` and `evidence` properties of the step answer. */
export function evidenceProperties(plan: ScaffoldPlan): Record<string, unknown> {
  const words = claimWords(plan);
  const validation = Object.fromEntries(
    words.map((word) => [
      word === "git_clean" ? word : `${word}_passed`,
      { type: "boolean", description: "Whether the check passed when you last ran it yourself." },
    ]),
  );
  const evidence = Object.fromEntries(
    words.map((word) => [
      `${word}_output`,
      { type: "string", description: "The last lines the check printed when you ran it." },
    ]),
  );
  return {
    validation: {
      type: "object",
      description: "With status completed: what each check gave when you ran it yourself.",
      properties: validation,
    },
    evidence: {
      type: "object",
      description: "With status completed: what each check printed when you ran it yourself.",
      properties: evidence,
    },
  };
}

/** The lines of the answer section that ask for the report. */
export function evidenceInstructions(plan: ScaffoldPlan): string {
  const keys = claimWords(plan).map((word) => (word === "git_clean" ? word : `${word}_passed`));
  return `- \`validation\` and \`evidence\` (with "completed"): run each check yourself and report what it
  gave (\`${keys.join("`, `")}\`) and the last lines it printed (\`<check>_output\`). closer runs
  the checks again and names every report of yours that its own run contradicts.
`;
}
