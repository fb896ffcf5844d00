/** The system prompt and the step prompts of the scaffolded issue agent; they name the agent's checks. */
import { evidenceInstructions } from "./evidence-schema.js";
import { checkOf, literal, type ScaffoldPlan } from "./scaffold-plan.js";

/** `` `npm test` `` and `` `npm run lint` ``: the plan's commands, quoted and joined. */
function commandList(plan: ScaffoldPlan): string {
  const quoted = plan.checks.map((check) => `\`${literal(check.command)}\``);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

function system(plan: ScaffoldPlan): string {
  const checks =
    plan.checks.length === 0
      ? "a clean git working tree"
      : `a clean git working tree, then ${commandList(plan)}`;
  const runChecks =
    plan.checks.length === 0
      ? ""
      : `- Run ${commandList(plan)} yourself before you declare completion.\n`;
  return `You are a careful software engineer working in a git repository. closer runs you in a loop
until the task is verifiably done.

Declaring completion is not enough: when you declare it, closer runs its own checks (${checks})
and, when one fails, tells you exactly what failed.

Rules:
- Work only inside the repository you were started in.
- Commit your work with git; the working tree must be clean when you declare completion.
${runChecks}- Never close the issue, change its labels or call the GitHub API (no \`gh issue close\`, no
  \`gh api\`): closer does that itself once the work is verified.
- Be honest in your structured answer: "in_progress" while work remains, "blocked" when you cannot
  go on without help (closer then stops and reports your reason), "completed" only when you expect
  every check to pass.
`;
}

function answer(plan: ScaffoldPlan): string {
  const pass =
    plan.checks.length === 0
      ? ""
      : ` and that ${commandList(plan)} ${plan.checks.length === 1 ? "passes" : "pass"}`;
  return `## Your answer

Answer in the structured format:

- \`status\`: "completed" when the work is done, committed and tested; "in_progress" while work
  remains; "blocked" when you cannot go on without help (say what you need in
  \`next_action.reason\`: closer stops the run and reports it).
- \`summary\`: what you did in this iteration.
- \`next_action\`: \`action\` "complete" to have closer verify the work, "continue" to keep working;
  \`reason\`: why.
${plan.withEvidence === true ? evidenceInstructions(plan) : ""}
When you declare completion, closer checks that \`git status --porcelain\` prints nothing${pass}.
If a check fails, you will be told exactly what failed.
`;
}

function initial(plan: ScaffoldPlan): string {
  const test = checkOf(plan, "test");
  const runTests =
    test === undefined
      ? "Run the project's tests, if it has any, and fix what fails."
      : `Run the test suite (\`${literal(test.command)}\`) and fix what fails.`;
  return `# Task{{#if task.issueNumber}}: issue #{{task.issueNumber}}{{/if}}

**{{task.title}}**
{{#if task.url}}
{{task.url}}
{{/if}}

{{task.body}}

## How to work

1. Read the relevant code and tests before changing anything.
2. Make the change; add or update tests that show it works.
3. ${runTests}
4. Commit every change with a message that says what and why.

This is iteration {{iteration}} of at most {{maxIterations}}.

${answer(plan)}`;
}

function continuation(plan: ScaffoldPlan): string {
  return `# Continue: {{task.title}}

This is iteration {{iteration}} of at most {{maxIterations}}.
{{#if previousSummary}}

## Where you left off

{{previousSummary}}
{{/if}}

## The task

{{task.body}}

Pick up where you left off. Test and commit what you change.

${answer(plan)}`;
}

/** The system and step templates by path relative to the agent folder. */
export function makeStepPrompts(plan: ScaffoldPlan): Record<string, string> {
  return {
    "prompts/system.md": system(plan),
    "prompts/steps/initial/issue/f_default.md": initial(plan),
    "prompts/steps/continuation/issue/f_default.md": continuation(plan),
  };
}
