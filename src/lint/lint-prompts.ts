import { join } from "node:path";
import { closureReviewWords } from "../completion/closure-review.js";
import { closestKey } from "../definition/known-keys.js";
import { CloserError } from "../errors.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { C3lWords } from "../ports/prompts.js";
import { findBadWords } from "../prompts/c3l.js";
import { listTemplateNeeds, type TemplateNeeds } from "../prompts/list-template-needs.js";
import { retryWords, stepWords } from "../prompts/prompt-words.js";
import {
  type LocatedPrompt,
  locatePrompt,
  makeTemplateReader,
  type TemplateReader,
} from "../prompts/render-prompt.js";
import {
  RETRY_VARIABLES,
  REVIEW_VARIABLES,
  RUNNER_VARIABLES,
  TASK_FIELDS,
} from "../prompts/variables.js";
import { quoteList } from "./lint-references.js";
import { keyPath, type ProblemCollector, type ProblemPlace } from "./problem.js";
import { type RetryTarget, retryTargets } from "./retry-targets.js";

interface TemplateExpectation {
  /** Names the template may use besides runner variables, agent parameters and its own params. */
  readonly extra: readonly string[];
  readonly retry?: RetryTarget;
  /** Who asks for the prompt, for messages: `step "initial.issue"`. */
  readonly owner: string;
}

interface PromptContext {
  readonly agent: ResolvedAgent;
  readonly problems: ProblemCollector;
  /** What each template file needs, read once; undefined for a file that does not parse. */
  readonly needs: Map<string, TemplateNeeds | undefined>;
  /** Each template file read once for every prompt that falls back to it. */
  readonly read: TemplateReader;
}

/** Checks that every prompt the loop can ask for resolves, and that its variables are supplied. */
export async function lintPrompts(agent: ResolvedAgent, problems: ProblemCollector): Promise<void> {
  const context: PromptContext = { agent, problems, needs: new Map(), read: makeTemplateReader() };
  const { registry } = agent;
  for (const [id, step] of Object.entries(registry.steps)) {
    await checkPrompt(context, {
      words: stepWords(registry.c1, step),
      place: { file: agent.files.registry, jsonPath: keyPath("steps", id) },
      expectation: { extra: [], owner: `step "${id}"` },
    });
  }
  for (const [id, completionStep] of Object.entries(registry.completionSteps)) {
    const jsonPath = keyPath("completionSteps", id);
    for (const target of retryTargets(agent, completionStep)) {
      const pattern = registry.completionPatterns[target.pattern];
      await checkPrompt(context, {
        words: retryWords(registry.c1, completionStep, target.pattern, pattern),
        place: { file: agent.files.registry, jsonPath },
        expectation: {
          extra: [...RETRY_VARIABLES, ...target.supplied],
          retry: target,
          owner: `pattern "${target.pattern}" of completion step "${id}"`,
        },
      });
    }
    if (completionStep.prompt) {
      await checkPrompt(context, {
        words: await completionPromptWords(context, completionStep.prompt),
        place: { file: agent.files.registry, jsonPath: `${jsonPath}.prompt` },
        expectation: { extra: [], owner: `the completion prompt of completion step "${id}"` },
      });
    }
    if (completionStep.closureReview) {
      await checkPrompt(context, {
        words: closureReviewWords(registry.c1, completionStep.closureReview),
        place: { file: agent.files.registry, jsonPath: `${jsonPath}.closureReview` },
        expectation: {
          extra: REVIEW_VARIABLES,
          owner: `the closure review of completion step "${id}"`,
        },
      });
    }
  }
}

/** The completion prompt's words: its edition when that file exists, else `default` (as a run looks). */
async function completionPromptWords(
  context: PromptContext,
  prompt: { readonly c2: string; readonly c3: string; readonly edition: string },
): Promise<C3lWords> {
  const { agent, read } = context;
  const words = { c1: agent.registry.c1, c2: prompt.c2, c3: prompt.c3, edition: prompt.edition };
  if (prompt.edition === "default" || findBadWords(words).length > 0) return words;
  const located = await locatePrompt(agent.dir, words, { retry: false, read });
  return located.found === undefined ? { ...words, edition: "default" } : words;
}

async function checkPrompt(
  context: PromptContext,
  request: { words: C3lWords; place: ProblemPlace; expectation: TemplateExpectation },
): Promise<void> {
  const { agent, problems, read } = context;
  const { words, place, expectation } = request;
  // Bad words are reported once, at their place in the registry, by lintPathWords.
  if (findBadWords(words).length > 0) return;
  let located: LocatedPrompt;
  try {
    located = await locatePrompt(agent.dir, words, {
      retry: expectation.retry !== undefined,
      read,
    });
  } catch (error) {
    if (error instanceof CloserError) return problems.addError(error, place);
    throw error;
  }
  const tried = located.candidates
    .filter((candidate) => candidate.kind !== "builtin")
    .map((candidate) => candidate.path);
  const first = tried[0] ?? "the template";
  if (located.found === undefined) {
    problems.error(
      place,
      `no prompt for ${expectation.owner}: looked for ${tried.join(", ")}`,
      `create ${first} in the agent folder`,
    );
    return;
  }
  if (located.source === undefined) {
    if (expectation.retry?.warnOnBuiltin) {
      problems.warning(
        place,
        `no retry template for ${expectation.owner}; the built-in generic text will be used (looked for ${tried.join(", ")})`,
        `create ${first}`,
      );
    }
    return;
  }
  const templatePath = located.found.path;
  const needs = needsOnce(context, templatePath, located.source);
  if (needs === undefined) return;
  checkTemplateVariables(context, { templatePath, needs, expectation });
}

function needsOnce(
  context: PromptContext,
  templatePath: string,
  source: string,
): TemplateNeeds | undefined {
  if (context.needs.has(templatePath)) return context.needs.get(templatePath);
  let needs: TemplateNeeds | undefined;
  try {
    needs = listTemplateNeeds(source, templatePath);
  } catch (error) {
    if (!(error instanceof CloserError)) throw error;
    reportTemplateError(context, templatePath, error);
  }
  context.needs.set(templatePath, needs);
  return needs;
}

/** Template errors name the path inside the agent folder; problems are shown from the cwd. */
function reportTemplateError(
  context: PromptContext,
  templatePath: string,
  error: CloserError,
): void {
  const { line, column, jsonPath, fix } = error.fields;
  const place: ProblemPlace = {
    file: join(context.agent.dir, templatePath),
    ...(line === undefined ? {} : { line }),
    ...(line === undefined || column === undefined ? {} : { column }),
    ...(jsonPath === undefined ? {} : { jsonPath }),
  };
  context.problems.error(place, error.message.split("\n")[0] ?? error.message, fix);
}

function checkTemplateVariables(
  context: PromptContext,
  input: { templatePath: string; needs: TemplateNeeds; expectation: TemplateExpectation },
): void {
  const { agent, problems } = context;
  const { templatePath, needs, expectation } = input;
  const file = join(agent.dir, templatePath);
  const always = [...RUNNER_VARIABLES, ...Object.keys(agent.parameters)];
  const supplied = new Set([...always, ...expectation.extra]);
  assertDeclaredParams(problems, { file, needs, supplied, expectation });
  const allowed = new Set([...supplied, ...needs.params]);
  for (const variable of needs.variables) {
    const { line } = variable;
    if (!allowed.has(variable.name)) {
      problems.error(
        { file, line },
        `template uses {{${variable.path}}} but nothing supplies "${variable.name}" to ${expectation.owner}`,
        `use one of ${[...supplied].join(", ")}; declare "${variable.name}" as an agent parameter${expectation.retry ? " or extract it in a validator's extractParams" : ""}`,
      );
      continue;
    }
    const field = variable.path.split(".")[1];
    if (variable.name === "task" && field !== undefined && !TASK_FIELDS.includes(field)) {
      const suggestion = closestKey(field, TASK_FIELDS);
      problems.error(
        { file, line },
        `template uses {{${variable.path}}} but task has no field "${field}"`,
        suggestion
          ? `did you mean {{task.${suggestion}}}?`
          : `use one of ${TASK_FIELDS.map((each) => `task.${each}`).join(", ")}`,
      );
    }
  }
  for (const helper of needs.unknownHelpers) {
    problems.error(
      { file },
      `template calls helper "${helper}", which closer does not provide`,
      "use if, unless, each, with or lookup",
    );
  }
  for (const partial of needs.partials) {
    problems.error(
      { file },
      `template uses partial "${partial}"; closer registers no partials`,
      "inline the text",
    );
  }
}

function assertDeclaredParams(
  problems: ProblemCollector,
  input: {
    file: string;
    needs: TemplateNeeds;
    supplied: ReadonlySet<string>;
    expectation: TemplateExpectation;
  },
): void {
  const { file, needs, supplied, expectation } = input;
  const line = needs.hasFrontMatter ? 2 : undefined;
  const place: ProblemPlace = { file, jsonPath: "params", ...(line === undefined ? {} : { line }) };
  for (const param of needs.params) {
    if (supplied.has(param)) continue;
    const validators = expectation.retry?.validators ?? [];
    const lacking = validators.filter((validator) => !validator.params.includes(param));
    if (lacking.length > 0) {
      const names = lacking.map((validator) => validator.name);
      problems.error(
        place,
        `template declares param "${param}" for ${expectation.owner}, but validator(s) ${quoteList(names)} do not extract it`,
        `add "${param}" to extractParams of ${names.map((name) => keyPath("validators", name)).join(", ")}, or remove it from params`,
      );
      continue;
    }
    problems.error(
      place,
      `template declares param "${param}", but nothing supplies it to ${expectation.owner}`,
      `remove "${param}" from params, or declare it as an agent parameter`,
    );
  }
}
