import { stat } from "node:fs/promises";
import { relative } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { CustomValidatorDefinition, ValidatorDefinition } from "../ports/registry.js";
import { findBadWords } from "../prompts/c3l.js";
import { stepWords } from "../prompts/prompt-words.js";
import { RETRY_VARIABLES, RUNNER_VARIABLES } from "../prompts/variables.js";
import { applyConditionParams } from "../validators/condition-params.js";
import { lintModuleImports } from "./lint-module-import.js";
import { keyPath, type ProblemCollector } from "./problem.js";

/** Names a quoted, comma-separated list: `"a", "b"`. */
export function quoteList(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

const PARAMS_FIX =
  'give the condition "params" with a value for each {{name}} of the validator (docs/completion.md#condition-params)';

/** Validators whose failurePattern is the given pattern. */
function validatorsForPattern(agent: ResolvedAgent, pattern: string): ValidatorDefinition[] {
  return Object.values(agent.registry.validators).filter(
    (validator) => validator.failurePattern === pattern,
  );
}

/**
 * Checks that every name the registry points at (next and completion steps, validators,
 * patterns) exists; the loader has already checked the entry step.
 */
export function lintTargets(agent: ResolvedAgent, problems: ProblemCollector): void {
  const { registry } = agent;
  const file = agent.files.registry;
  const stepIds = Object.keys(registry.steps);
  for (const [id, step] of Object.entries(registry.steps)) {
    const path = keyPath("steps", id);
    if (step.next !== undefined && registry.steps[step.next] === undefined) {
      problems.error(
        { file, jsonPath: `${path}.next` },
        `next step "${step.next}" of step "${id}" does not exist`,
        `set next to one of ${quoteList(stepIds)}, or remove it to stay on this step`,
      );
    }
    if (step.completionStep !== undefined && !(step.completionStep in registry.completionSteps)) {
      problems.error(
        { file, jsonPath: `${path}.completionStep` },
        `completion step "${step.completionStep}" of step "${id}" does not exist`,
        `add "${step.completionStep}" to completionSteps, or name one of ${quoteList(Object.keys(registry.completionSteps)) || "none"}`,
      );
    }
  }
  for (const [id, completionStep] of Object.entries(registry.completionSteps)) {
    completionStep.completionConditions.forEach((condition, index) => {
      const validator = registry.validators[condition.validator];
      if (validator !== undefined) {
        const applied = applyConditionParams(validator, condition.params);
        if (!applied.ok) {
          const at = `${keyPath("completionSteps", id)}.completionConditions[${index}]`;
          const [what = applied.error] = applied.error.split(" — ");
          problems.error({ file, jsonPath: `${at}.params` }, what, PARAMS_FIX);
        }
        return;
      }
      problems.error(
        {
          file,
          jsonPath: `${keyPath("completionSteps", id)}.completionConditions[${index}].validator`,
        },
        `validator "${condition.validator}" of completion step "${id}" is not defined`,
        `add "${condition.validator}" to validators, or use one of ${quoteList(Object.keys(registry.validators)) || "none"}`,
      );
    });
  }
  for (const [name, validator] of Object.entries(registry.validators)) {
    if (validator.failurePattern in registry.completionPatterns) continue;
    problems.error(
      { file, jsonPath: `${keyPath("validators", name)}.failurePattern` },
      `failurePattern "${validator.failurePattern}" of validator "${name}" is not in completionPatterns`,
      `add "${validator.failurePattern}" to completionPatterns, or use one of ${quoteList(Object.keys(registry.completionPatterns)) || "none"}`,
    );
  }
}

/** Checks that custom validator modules exist and import. */
export async function lintCustomModules(
  agent: ResolvedAgent,
  problems: ProblemCollector,
): Promise<void> {
  const found = new Set<CustomValidatorDefinition>();
  for (const [name, validator] of Object.entries(agent.registry.validators)) {
    if (validator.type !== "custom") continue;
    const isFile = await stat(validator.module).then(
      (stats) => stats.isFile(),
      () => false,
    );
    if (isFile) {
      found.add(validator);
      continue;
    }
    problems.error(
      { file: agent.files.registry, jsonPath: `${keyPath("validators", name)}.module` },
      `module ${relative(agent.dir, validator.module)} of custom validator "${name}" does not exist`,
      "create the module (relative to the agent folder) or correct the path",
    );
  }
  await lintModuleImports(agent, problems, found);
}

/**
 * Checks each pattern's params against what the validators mapped to it extract. A custom
 * validator's module returns its params at run time, so only the rendering can check those.
 */
export function lintPatternParams(agent: ResolvedAgent, problems: ProblemCollector): void {
  const file = agent.files.registry;
  for (const [name, pattern] of Object.entries(agent.registry.completionPatterns)) {
    const validators = validatorsForPattern(agent, name).filter(
      (validator) => validator.type !== "custom",
    );
    if (validators.length === 0) continue;
    for (const param of pattern.params) {
      if (RUNNER_VARIABLES.includes(param) || RETRY_VARIABLES.includes(param)) continue;
      const lacking = validators.filter((validator) => !(param in validator.extractParams));
      if (lacking.length === 0) continue;
      const names = lacking.map((validator) => validator.name);
      problems.error(
        { file, jsonPath: `${keyPath("completionPatterns", name)}.params` },
        `param "${param}" of pattern "${name}" is not extracted by validator(s) ${quoteList(names)}`,
        `add "${param}" to extractParams of ${names.map((each) => keyPath("validators", each)).join(", ")}, or remove it from the pattern's params`,
      );
    }
  }
}

/** Path words that pass the file schema but could still leave the agent folder (`a..b`). */
export function lintPathWords(agent: ResolvedAgent, problems: ProblemCollector): void {
  const file = agent.files.registry;
  const { registry } = agent;
  const report = (errors: ReturnType<typeof findBadWords>) => {
    for (const error of errors) problems.addError(error, { file });
  };
  for (const [id, step] of Object.entries(registry.steps)) {
    report(findBadWords(stepWords(registry.c1, step), { file, jsonPath: keyPath("steps", id) }));
  }
  for (const [id, step] of Object.entries(registry.completionSteps)) {
    const jsonPath = keyPath("completionSteps", id);
    report(
      findBadWords(
        { c1: registry.c1, c2: step.c2, c3: step.c3, edition: "failed" },
        { file, jsonPath },
      ),
    );
    if (step.closureReview) {
      const review = { c1: registry.c1, ...step.closureReview, edition: "default" };
      report(findBadWords(review, { file, jsonPath: `${jsonPath}.closureReview` }));
    }
  }
  for (const [name, pattern] of Object.entries(registry.completionPatterns)) {
    const words = { edition: pattern.edition, adaptation: pattern.adaptation };
    report(findBadWords(words, { file, jsonPath: keyPath("completionPatterns", name) }));
  }
}

/** An agent parameter named like a runner variable would be silently shadowed in every template. */
export function lintParameterNames(agent: ResolvedAgent, problems: ProblemCollector): void {
  for (const name of Object.keys(agent.parameters)) {
    if (!RUNNER_VARIABLES.includes(name) && !RETRY_VARIABLES.includes(name)) continue;
    problems.error(
      { file: agent.files.agentJson, jsonPath: keyPath("parameters", name) },
      `parameter "${name}" has the name of a variable closer supplies to templates`,
      `rename the parameter (reserved: ${[...RUNNER_VARIABLES, ...RETRY_VARIABLES].join(", ")})`,
    );
  }
}
