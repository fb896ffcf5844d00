import path from "node:path";
import { CloserError } from "../errors.js";
import type {
  CompletionStepDefinition,
  Registry,
  StepDefinition,
  ValidatorDefinition,
} from "../ports/registry.js";
import { formatJsonPath } from "./json-path.js";
import {
  assertStepId,
  normalizeCompletionStep,
  type Report,
  type StepContext,
} from "./normalize-completion-step.js";
import type { Normalized } from "./normalized.js";
import { WORD_PATTERN } from "./path-word.js";
import type {
  RegistryCompletionStep,
  RegistryFile,
  RegistryStepEntry,
  RegistryValidator,
} from "./registry-file-schema.js";
import { parseSuccessWhen } from "./success-when.js";

/** What the registry's defaults come from outside the file. */
export interface RegistryContext {
  /** Absolute path of steps_registry.json, for messages. */
  readonly file: string;
  readonly agentName: string;
  /** Absolute path of the agent folder; custom validator modules are relative to it. */
  readonly agentDir: string;
  /** Timeout of a validator command that sets none. */
  readonly validatorTimeoutMs: number;
  /** agent.json's runner.entryStep, which wins over the registry's. */
  readonly entryStep?: string;
  /** Absolute path of agent.json, for a runner.entryStep that names no step. */
  readonly agentJsonFile: string;
}

/**
 * Turns a validated steps_registry.json into the Registry downstream code reads:
 * both spellings of completion steps and their failure policy, every default applied.
 * Cross references (does `next` exist?) are left to `closer validate`.
 */
export function normalizeRegistry(
  file: RegistryFile,
  context: RegistryContext,
): Normalized<Registry> {
  const problems: CloserError[] = [];
  const report = (jsonPath: PropertyKey[], message: string, fix: string) =>
    problems.push(
      new CloserError("validation_error", message, {
        file: context.file,
        jsonPath: jsonPath.length > 0 ? formatJsonPath(jsonPath) : undefined,
        fix,
      }),
    );
  const { steps, completionSteps } = normalizeSteps(file, report);
  const entryStep = context.entryStep ?? file.entryStep ?? Object.keys(steps)[0];
  if (entryStep === undefined) {
    report(
      [],
      "the registry has no steps, so there is no step to start with",
      'add a step to "steps"',
    );
  } else if (!(entryStep in steps)) {
    problems.push(missingEntryStep(entryStep, Object.keys(steps), context));
  }
  const registry: Registry = {
    agentId: file.agentId ?? context.agentName,
    c1: file.c1,
    entryStep: entryStep ?? "",
    completionSignal: {
      status: [...file.completionSignal.status],
      action: [...file.completionSignal.action],
    },
    completionPatterns: mapValues(file.completionPatterns, (pattern, name) => ({
      name,
      description: pattern.description,
      edition: pattern.edition,
      adaptation: pattern.adaptation ?? name,
      params: [...pattern.params],
    })),
    validators: mapValues(file.validators, (validator, name) =>
      normalizeValidator(name, validator, context),
    ),
    steps,
    completionSteps,
    protectedPaths: [...file.protectedPaths],
  };
  return { value: registry, problems };
}

/** The entry step is checked here, not left to `closer validate`: no run can start without it. */
function missingEntryStep(entryStep: string, stepIds: string[], context: RegistryContext) {
  const inAgentJson = context.entryStep !== undefined;
  const names = stepIds.map((id) => `"${id}"`).join(", ") || "none";
  return new CloserError(
    "validation_error",
    `entryStep "${entryStep}" is not a step (steps: ${names})`,
    {
      file: inAgentJson ? context.agentJsonFile : context.file,
      jsonPath: inAgentJson ? "runner.entryStep" : "entryStep",
      fix: `set ${inAgentJson ? "runner.entryStep" : "entryStep"} to one of the keys of steps`,
    },
  );
}

function mapValues<T, R>(
  record: Readonly<Record<string, T>>,
  map: (value: T, key: string) => R,
): Record<string, R> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}

/** Both spellings: a completion step may sit in `steps` (docs/definition.md#completion-step-spellings) or in `completionSteps`. */
function normalizeSteps(file: RegistryFile, report: Report) {
  const context: StepContext = { c1: file.c1, report };
  const steps: Record<string, StepDefinition> = {};
  const completionSteps: Record<string, CompletionStepDefinition> = {};
  for (const [id, entry] of Object.entries(file.steps)) {
    if (!isCompletionStep(entry)) {
      steps[id] = normalizeStep(id, entry, report);
      continue;
    }
    if (id in file.completionSteps) {
      report(
        ["steps", id],
        `"${id}" is defined both in steps and in completionSteps`,
        "keep one of the two definitions",
      );
    }
    completionSteps[id] = normalizeCompletionStep(id, entry, ["steps", id], context);
  }
  for (const [id, entry] of Object.entries(file.completionSteps)) {
    const at = ["completionSteps", id];
    completionSteps[id] = normalizeCompletionStep(id, entry, at, context);
  }
  return { steps, completionSteps };
}

function isCompletionStep(entry: RegistryStepEntry): entry is RegistryCompletionStep {
  return "completionConditions" in entry;
}

function normalizeStep(
  id: string,
  entry: Exclude<RegistryStepEntry, RegistryCompletionStep>,
  report: Report,
): StepDefinition {
  assertStepId(id, entry.stepId, ["steps", id], report);
  const [idC2, idC3] = wordsOfId(id);
  const c2 = entry.c2 ?? idC2;
  const c3 = entry.c3 ?? idC3;
  if (c2 === undefined || c3 === undefined) {
    report(
      ["steps", id],
      `step "${id}" names no ${c2 === undefined ? "c2" : "c3"} and its id is not of the form <c2>.<c3>`,
      'add "c2" and "c3" (the prompt folder: prompts/<c1>/<c2>/<c3>/)',
    );
  }
  return {
    id,
    name: entry.name ?? id,
    c2: c2 ?? "",
    c3: c3 ?? "",
    edition: entry.edition,
    ...(entry.adaptation === undefined ? {} : { adaptation: entry.adaptation }),
    ...(entry.outputSchemaRef === undefined
      ? {}
      : { outputSchemaRef: { ...entry.outputSchemaRef } }),
    ...(entry.next === undefined ? {} : { next: entry.next }),
    ...(entry.completionStep === undefined ? {} : { completionStep: entry.completionStep }),
    ...(entry.model === undefined ? {} : { model: entry.model }),
  };
}

/** `initial.issue` → ["initial", "issue"] when both halves are valid words. */
function wordsOfId(id: string): [string | undefined, string | undefined] {
  const dot = id.indexOf(".");
  if (dot <= 0) return [undefined, undefined];
  const c2 = id.slice(0, dot);
  const c3 = id.slice(dot + 1);
  return WORD_PATTERN.test(c2) && WORD_PATTERN.test(c3) ? [c2, c3] : [undefined, undefined];
}

function normalizeValidator(
  name: string,
  validator: RegistryValidator,
  context: RegistryContext,
): ValidatorDefinition {
  const base = {
    name,
    failurePattern: validator.failurePattern,
    // A custom module returns its params itself.
    extractParams: validator.type === "custom" ? {} : { ...validator.extractParams },
    reruns: validator.reruns,
    cache: validator.cache,
  };
  switch (validator.type) {
    case "command": {
      const parsed = parseSuccessWhen(validator.successWhen);
      // The schema has already rejected an invalid rule.
      if (!parsed.ok) throw new CloserError("internal_error", parsed.error);
      return {
        ...base,
        type: "command",
        command: validator.command,
        successWhen: parsed.value,
        successWhenText: validator.successWhen,
        timeoutMs: validator.timeoutMs ?? context.validatorTimeoutMs,
      };
    }
    case "custom":
      return {
        ...base,
        type: "custom",
        module: path.resolve(context.agentDir, validator.module),
        timeoutMs: context.validatorTimeoutMs,
      };
    default: {
      // A plain type: its fields are used as written.
      const { failurePattern: _pattern, extractParams: _extract, ...fields } = validator;
      return { ...base, ...fields };
    }
  }
}
