/** The retry prompts of the scaffolded issue agent: one per completion pattern, and the fallbacks. */
import type { ProjectCheck } from "./project-check.js";
import { literal, ROLE_SCAFFOLD, type ScaffoldPlan } from "./scaffold-plan.js";

const RETRY_FOOTER = `{{#if previousSummary}}
## What you declared last time, and what closer found

{{previousSummary}}

{{/if}}
Fix exactly this, commit, and declare completion again. (Completion check {{checkId}}, attempt {{attempt}}.)
`;

const GIT_DIRTY = `---
params:
  - changedFiles
  - untrackedFiles
---
# The working tree is not clean

You declared the work complete, but \`git status --porcelain\` is not empty.
{{#if changedFiles}}

Changed files that are not committed:
{{#each changedFiles}}
- \`{{this}}\`
{{/each}}
{{/if}}
{{#if untrackedFiles}}

Untracked files:
{{#each untrackedFiles}}
- \`{{this}}\`
{{/each}}
{{/if}}
{{#if dirtyAtStart}}

These files had uncommitted changes before the run started. They are not yours: leave them as they
are, do not delete, revert or commit them:
{{#each dirtyAtStart}}
- \`{{this}}\`
{{/each}}
{{/if}}

Commit the changes that belong to the task. A file you created that does not belong to it: delete
it, or add it to \`.gitignore\` when it is generated. Never delete a file that was there before the
run. Then run \`git status --porcelain\` yourself: it must print nothing.

${RETRY_FOOTER}`;

/** How a failed check of each role is told, and how its findings are listed when parsed. */
const ROLE_TEXT = {
  test: {
    title: "The tests fail",
    fails: "fails",
    findingsHeading: "Failed tests",
    findingsLine: "- {{name}}{{#if error}}: {{error}}{{/if}}",
    outputHeading: "Test output",
    fix: (command: string) =>
      `Fix the code (or a test that is wrong about the intended behaviour) until \`${command}\` passes.`,
  },
  typecheck: {
    title: "The type check fails",
    fails: "reports errors",
    findingsHeading: "Type errors",
    findingsLine: "- {{file}}:{{line}} {{message}}",
    outputHeading: "Compiler output",
    fix: () => "Fix the types; do not silence them with `any` or `@ts-ignore`.",
  },
  lint: {
    title: "The linter reports problems",
    fails: "fails",
    findingsHeading: "Problems",
    findingsLine: "- {{file}}:{{line}} {{rule}}: {{message}}",
    outputHeading: "Linter output",
    fix: () => "Fix the code; do not disable the rules.",
  },
} as const;

/** The retry template of a failed check: its findings when closer parses them, and its output. */
function checkRetry(check: ProjectCheck): string {
  const text = ROLE_TEXT[check.role];
  const param = ROLE_SCAFFOLD[check.role].findingsParam;
  const command = literal(check.command);
  const findings =
    check.parser === undefined
      ? ""
      : `{{#if ${param}}}

## ${text.findingsHeading}

{{#each ${param}}}
${text.findingsLine}
{{/each}}
{{/if}}
`;
  const params = check.parser === undefined ? ["errorOutput"] : [param, "errorOutput"];
  return `---
params:
${params.map((name) => `  - ${name}`).join("\n")}
---
# ${text.title}

You declared the work complete, but \`${command}\` ${text.fails}.
${findings}
## ${text.outputHeading}

\`\`\`
{{errorOutput}}
\`\`\`

${text.fix(command)}

${RETRY_FOOTER}`;
}

const FORMAT_ERROR = `---
params:
  - formatError
  - expectedFormat
---
# Your answer could not be read

closer could not read your declaration: {{formatError}}

Expected: {{expectedFormat}}

Answer again in the structured format with \`status\`, \`summary\` and \`next_action\`
(\`action\` and \`reason\`). Attempt {{attempt}}.
`;

const GENERIC_FAILED = `# A completion check failed: {{pattern}}

You declared the work complete, but closer's checks disagree. What the check found:

{{failureDetails}}

${RETRY_FOOTER}`;

/** The retry templates by path relative to the agent folder. */
export function makeRetryPrompts(plan: ScaffoldPlan): Record<string, string> {
  const folder = "prompts/steps/retry/issue";
  const files: Record<string, string> = { [`${folder}/f_failed_git-dirty.md`]: GIT_DIRTY };
  for (const check of plan.checks) {
    files[`${folder}/f_failed_${ROLE_SCAFFOLD[check.role].pattern}.md`] = checkRetry(check);
  }
  files[`${folder}/f_failed_format-error.md`] = FORMAT_ERROR;
  files[`${folder}/f_failed.md`] = GENERIC_FAILED;
  return files;
}
