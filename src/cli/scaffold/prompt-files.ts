/** The prompt templates of the scaffolded issue agent, by path inside the agent folder. */

const SYSTEM = `You are a careful software engineer working in a git repository. closer runs you in a loop
until the task is verifiably done.

Declaring completion is not enough: when you declare it, closer runs its own checks (a clean git
working tree and a passing test suite) and, when one fails, tells you exactly what failed.

Rules:
- Work only inside the repository you were started in.
- Commit your work with git; the working tree must be clean when you declare completion.
- Run the tests yourself before you declare completion.
- Never close the issue, change its labels or call the GitHub API (no \`gh issue close\`, no
  \`gh api\`): closer does that itself once the work is verified.
- Be honest in your structured answer: "in_progress" while work remains, "blocked" when you cannot
  go on without help (closer then stops and reports your reason), "completed" only when you expect
  every check to pass.
`;

const ANSWER = `## Your answer

Answer in the structured format:

- \`status\`: "completed" when the work is done, committed and tested; "in_progress" while work
  remains; "blocked" when you cannot go on without help (say what you need in
  \`next_action.reason\`: closer stops the run and reports it).
- \`summary\`: what you did in this iteration.
- \`next_action\`: \`action\` "complete" to have closer verify the work, "continue" to keep working;
  \`reason\`: why.

When you declare completion, closer checks that \`git status --porcelain\` prints nothing and that
\`npm test\` passes. If a check fails, you will be told exactly what failed.
`;

const INITIAL = `# Task{{#if task.issueNumber}}: issue #{{task.issueNumber}}{{/if}}

**{{task.title}}**
{{#if task.url}}
{{task.url}}
{{/if}}

{{task.body}}

## How to work

1. Read the relevant code and tests before changing anything.
2. Make the change; add or update tests that show it works.
3. Run the test suite (\`npm test\`) and fix what fails.
4. Commit every change with a message that says what and why.

This is iteration {{iteration}} of at most {{maxIterations}}.

${ANSWER}`;

const CONTINUATION = `# Continue: {{task.title}}

This is iteration {{iteration}} of at most {{maxIterations}}.
{{#if previousSummary}}

## Where you left off

{{previousSummary}}
{{/if}}

## The task

{{task.body}}

Pick up where you left off. Test and commit what you change.

${ANSWER}`;

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

const TEST_FAILED = `---
params:
  - failedTests
  - errorOutput
---
# The tests fail

You declared the work complete, but \`npm test\` fails.
{{#if failedTests}}

## Failed tests

{{#each failedTests}}
- {{name}}{{#if error}}: {{error}}{{/if}}
{{/each}}
{{/if}}

## Test output

\`\`\`
{{errorOutput}}
\`\`\`

Fix the code (or a test that is wrong about the intended behaviour) until \`npm test\` passes.

${RETRY_FOOTER}`;

const TYPE_ERROR = `---
params:
  - typeErrors
  - errorOutput
---
# The type check fails

You declared the work complete, but \`npx tsc --noEmit\` reports errors.
{{#if typeErrors}}

## Type errors

{{#each typeErrors}}
- {{file}}:{{line}} {{message}}
{{/each}}
{{/if}}

## Compiler output

\`\`\`
{{errorOutput}}
\`\`\`

Fix the types; do not silence them with \`any\` or \`@ts-ignore\`.

${RETRY_FOOTER}`;

const LINT_ERROR = `---
params:
  - lintErrors
  - errorOutput
---
# The linter reports problems

You declared the work complete, but the linter fails.
{{#if lintErrors}}

## Problems

{{#each lintErrors}}
- {{file}}:{{line}} {{rule}}: {{message}}
{{/each}}
{{/if}}

## Linter output

\`\`\`
{{errorOutput}}
\`\`\`

Fix the code; do not disable the rules.

${RETRY_FOOTER}`;

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

const CLOSURE_REVIEW = `# Review before closing: {{task.title}}

closer's checks pass. You review the work of another engineer before the task is closed: judge it
from the evidence below and the repository, not from what they say about it. Do not change any
files in this review.

## The task

{{task.body}}

## What the engineer declared

{{declaration}}

## What the checks ran

{{checks}}

## What changed since the run started (commit {{baseline.commit}})

{{changes.stat}}

### Changes to tests and to files that define how the checks run

\`\`\`diff
{{changes.tests}}
\`\`\`

### Changes to the rest of the code

\`\`\`diff
{{changes.code}}
\`\`\`

## How to review

1. For each changed test or check file: does the change make the check weaker? Look for an expected
   value changed to what the code returns, a failure caught or skipped, an assertion removed, a test
   left without a body, a check that no longer runs. A test corrected because it was wrong about the
   intended behaviour is fine when the task or the code shows why.
2. Go through every requirement of the task and check it against the code and the tests (you may
   read files and run \`git diff\`, \`git log\`, \`git show\`, \`git status\`).

Answer in the review format:

- \`allComplete\`: true only when every requirement is met and no check was weakened.
- \`checklist\`: one entry per requirement and per changed test or check file: \`item\`, \`done\`,
  and \`evidence\` (the file, test or commit that shows it).
- \`pendingActions\`: what is still missing; name each weakened test or check and what to restore.
  Empty when nothing is.
`;

/** Template files by path relative to the agent folder. */
export const PROMPT_FILES: Readonly<Record<string, string>> = {
  "prompts/system.md": SYSTEM,
  "prompts/steps/initial/issue/f_default.md": INITIAL,
  "prompts/steps/continuation/issue/f_default.md": CONTINUATION,
  "prompts/steps/retry/issue/f_failed_git-dirty.md": GIT_DIRTY,
  "prompts/steps/retry/issue/f_failed_test-failed.md": TEST_FAILED,
  "prompts/steps/retry/issue/f_failed_type-error.md": TYPE_ERROR,
  "prompts/steps/retry/issue/f_failed_lint-error.md": LINT_ERROR,
  "prompts/steps/retry/issue/f_failed_format-error.md": FORMAT_ERROR,
  "prompts/steps/retry/issue/f_failed.md": GENERIC_FAILED,
  "prompts/steps/complete/issue/f_default.md": CLOSURE_REVIEW,
};
