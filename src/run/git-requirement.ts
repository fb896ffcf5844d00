import { CloserError } from "../errors.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { ValidatorDefinition } from "../ports/registry.js";

/** `git` as a program of a shell line: `git status`, `npm test && git diff`, `/usr/bin/git log`. */
const RUNS_GIT = /(?:^|[\s;&|(`/])git(?=$|[\s;&|)`])/;

/** Extractors that read `git status` output. */
const GIT_STATUS_EXTRACTORS: ReadonlySet<string> = new Set([
  "parseChangedFiles",
  "parseUntrackedFiles",
]);

/** How a run works: in a worktree, on an issue. */
export interface RunShape {
  readonly worktree: boolean;
  readonly issue: boolean;
}

/** Why the validator needs git, in words; undefined when it does not. */
export function describeGitNeed(validator: ValidatorDefinition): string | undefined {
  if (validator.type === "command" && RUNS_GIT.test(validator.command)) {
    return `validator "${validator.name}" runs git (\`${validator.command}\`)`;
  }
  const extractor = Object.values(validator.extractParams).find((name) =>
    GIT_STATUS_EXTRACTORS.has(name),
  );
  if (extractor === undefined) return undefined;
  return `validator "${validator.name}" reads git's status (${extractor})`;
}

/** Why the run needs git: its worktree or issue, and the completion conditions that use git. */
export function listGitNeeds(agent: ResolvedAgent, shape: RunShape): string[] {
  const needs: string[] = [];
  if (shape.issue) needs.push("an issue run works on a branch of the repository");
  else if (shape.worktree) needs.push("the run works in a git worktree");
  const steps = Object.values(agent.registry.completionSteps);
  const names = new Set(steps.flatMap((step) => step.completionConditions.map((c) => c.validator)));
  for (const name of names) {
    const validator = agent.registry.validators[name];
    const need = validator === undefined ? undefined : describeGitNeed(validator);
    if (need !== undefined) needs.push(need);
  }
  return needs;
}

/**
 * A run outside git stops here, before any model call, when it needs git
 * (docs/worktrees-and-github.md#outside-git); a git check there would fail
 * forever, or pass for the wrong reason. A run that needs no git goes on, with
 * the warning returned.
 */
export function assertGitRepository(
  agent: ResolvedAgent,
  cwd: string,
  shape: RunShape & { readonly inside: boolean },
): string[] {
  if (shape.inside) return [];
  const needs = listGitNeeds(agent, shape);
  if (needs.length > 0) {
    throw new CloserError(
      "workspace_error",
      `${cwd} is not a git repository: ${needs.join("; ")}`,
      {
        expected: "a folder inside a git repository",
        fix: "run `git init` (and commit) first, or run closer inside a repository",
      },
    );
  }
  return [
    `${cwd} is not a git repository, so the run goes on without git: closer makes no commits and no check can use git`,
  ];
}
