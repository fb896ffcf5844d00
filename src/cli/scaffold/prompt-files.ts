/** The prompt templates of the scaffolded issue agent, by path inside the agent folder. */
import { makeRetryPrompts } from "./retry-prompts.js";
import type { ScaffoldPlan } from "./scaffold-plan.js";
import { makeStepPrompts } from "./step-prompts.js";

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
/** Template files by path relative to the agent folder. */
export function makePromptFiles(plan: ScaffoldPlan): Record<string, string> {
  return {
    ...makeStepPrompts(plan),
    ...makeRetryPrompts(plan),
    "prompts/steps/complete/issue/f_default.md": CLOSURE_REVIEW,
  };
}
