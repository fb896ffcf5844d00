import type { BackendKind } from "../../ports/runner-config.js";
import type { JsonStyle } from "./json-text.js";
import type { CheckRole, ProjectCheck } from "./project-check.js";

/** Everything the scaffold depends on besides the agent's name. */
export interface ScaffoldPlan {
  /** The checks besides git-clean, at most one per role. */
  readonly checks: readonly ProjectCheck[];
  readonly backend: BackendKind;
  /** `--base-url`, `--model`, `--api-key-env`: the backend's settings only the user can give. */
  readonly backendSettings?: BackendSettings;
  /** `$schema` of agent.json and of steps_registry.json; absent: none written. */
  readonly schemas: { readonly agent?: string; readonly registry?: string };
  /** The answer also reports each check's result and output (docs/cli.md#init-evidence). */
  readonly withEvidence?: boolean;
  /** The layout of the JSON files, the project's formatter's (docs/cli.md#init-formatters); absent: two spaces. */
  readonly json?: JsonStyle;
  /** `runner.setup`: the commands that make a tree ready, and what each was chosen from (docs/definition.md#setup). */
  readonly setup?: readonly { readonly command: string; readonly source: string }[];
}

/** The backend settings init writes as given: agent.json's `runner.backend` keys. */
export interface BackendSettings {
  readonly baseURL?: string;
  readonly model?: string;
  readonly apiKeyEnv?: string;
}

/** How each role appears in steps_registry.json and in the retry prompts. */
export interface RoleScaffold {
  readonly validator: string;
  readonly pattern: string;
  readonly description: string;
  /** The param its findings parser fills. */
  readonly findingsParam: string;
}

export const ROLE_SCAFFOLD: Readonly<Record<CheckRole, RoleScaffold>> = {
  test: {
    validator: "tests-pass",
    pattern: "test-failed",
    description: "the test suite fails",
    findingsParam: "failedTests",
  },
  typecheck: {
    validator: "type-check",
    pattern: "type-error",
    description: "the type check fails",
    findingsParam: "typeErrors",
  },
  lint: {
    validator: "lint",
    pattern: "lint-error",
    description: "the linter reports problems",
    findingsParam: "lintErrors",
  },
};

/** The template params a check's validator fills: its findings when closer can parse them, and its output. */
export function extractParamsOf(check: ProjectCheck): Record<string, string> {
  const findings =
    check.parser === undefined ? {} : { [ROLE_SCAFFOLD[check.role].findingsParam]: check.parser };
  return { ...findings, errorOutput: "output" };
}

/** `text` as literal template text: a command's `{{` is not a Handlebars expression. */
export function literal(text: string): string {
  return text.replaceAll("{{", "\\{{");
}

/** The check of `role` in the plan, if any. */
export function checkOf(plan: ScaffoldPlan, role: CheckRole): ProjectCheck | undefined {
  return plan.checks.find((check) => check.role === role);
}
