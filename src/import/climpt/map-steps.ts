import { WORD_PATTERN } from "../../definition/path-word.js";
import { isPlainObject } from "../../plain-object.js";
import type { FileMapping } from "./mapping-report.js";

type Json = Record<string, unknown>;

/** Fields a step keeps as written when they hold a value closer reads. */
const STEP_WORDS = ["c2", "c3", "edition", "adaptation"] as const;
/** Fields of a completion step closer reads in the same spelling (docs/definition.md#seed-spellings). */
const COMPLETION_FIELDS = [
  "name",
  "c2",
  "c3",
  "prompt",
  "outputSchemaRef",
  "responseFormat",
  "maxFormatRetries",
  "check",
  "onFailure",
  "onFail",
  "closureReview",
  "concurrency",
] as const;
/** The retry folder of a closure step without a validation step, or of one that names none. */
const RETRY_C2 = "retry";

/** One entry of a section of climpt's registry, with its JSON path there. */
export interface Source {
  readonly id: string;
  readonly at: PropertyKey[];
  readonly value: Json;
}

/**
 * climpt's steps and validation steps as closer's steps and completion steps: a closure step
 * (`stepKind: "closure"`, or a transition to `null`) is checked against its validation step (or
 * against no condition when it has none), a work step against the closure step it hands off to;
 * `transitions.next` becomes `next`.
 */
export function mapSteps(source: Json, validators: Set<string>, mapping: FileMapping) {
  const completionSources = completionStepSources(source);
  const completionSteps: Json = {};
  for (const entry of completionSources) {
    completionSteps[entry.id] = mapCompletionStep(entry, validators, mapping);
  }
  const stepSources = sectionEntries(source, "steps").filter(
    (entry) => !("completionConditions" in entry.value),
  );
  // Steps in the seeds' spelling have no stepKind and no transitions: every one of them counts.
  const hasFlow = stepSources.some(({ value }) => "stepKind" in value || "transitions" in value);
  const flowSteps = stepSources.filter((entry) => keepStep(entry, hasFlow, mapping));
  const stepIds = new Set(flowSteps.map((entry) => entry.id));
  const closureIds = new Set(flowSteps.filter(isClosure).map((entry) => entry.id));
  const steps: Json = {};
  for (const entry of flowSteps) {
    const step = mapStep(entry, mapping);
    const completionStep =
      givenCompletionStep(entry, completionSteps, mapping) ??
      (closureIds.has(entry.id)
        ? linkClosure(entry, completionSteps, mapping)
        : linkHandoff(entry, closureIds, mapping));
    if (completionStep !== undefined) step.completionStep = completionStep;
    const next = nextOf(entry, stepIds, mapping);
    if (next !== undefined) step.next = next;
    steps[entry.id] = step;
  }
  askInClosurePrompt(steps, completionSteps, closureIds);
  return { steps, completionSteps, flow: { steps: hasFlow ? flowSteps : [], closureIds } };
}

/**
 * A work step that hands off to a closure step declares against that closure's completion step;
 * in climpt the model then answers the closure step's prompt in the closure's schema. So a
 * completion step with a schema of its own asks the closure step's prompt
 * (docs/completion.md#completion-prompt): the work step's answer could never match that schema
 * (docs/completion.md#unsatisfiable-completion-schema).
 */
function askInClosurePrompt(steps: Json, completionSteps: Json, closureIds: Set<string>): void {
  for (const [id, step] of Object.entries(steps)) {
    const target = isPlainObject(step) ? step.completionStep : undefined;
    if (typeof target !== "string" || target === id || !closureIds.has(target)) continue;
    const completion = completionSteps[target];
    const closure = steps[target];
    if (!isPlainObject(completion) || !isPlainObject(closure)) continue;
    if (completion.outputSchemaRef === undefined || completion.prompt !== undefined) continue;
    if (typeof closure.c2 !== "string" || typeof closure.c3 !== "string") continue;
    completion.prompt = {
      c2: closure.c2,
      c3: closure.c3,
      ...(typeof closure.edition === "string" ? { edition: closure.edition } : {}),
    };
  }
}

function sectionEntries(source: Json, section: string): Source[] {
  const entries = isPlainObject(source[section]) ? source[section] : {};
  return Object.entries(entries)
    .filter((entry): entry is [string, Json] => isPlainObject(entry[1]))
    .map(([id, value]) => ({ id, at: [section, id], value }));
}

/** climpt's validationSteps, and completionSteps and completion steps inside steps (docs/definition.md#seed-spellings). */
function completionStepSources(source: Json): Source[] {
  return [
    ...sectionEntries(source, "validationSteps"),
    ...sectionEntries(source, "completionSteps"),
    ...sectionEntries(source, "steps").filter((entry) => "completionConditions" in entry.value),
  ];
}

function mapCompletionStep(entry: Source, validators: Set<string>, mapping: FileMapping): Json {
  const { id, at, value } = entry;
  const target = `steps_registry.json completionSteps["${id}"]`;
  const step: Json = {};
  if (value.stepId === id) mapping.mapped([...at, "stepId"], `${target} (its key)`);
  for (const field of COMPLETION_FIELDS) {
    if (value[field] === undefined) continue;
    step[field] = value[field];
    mapping.mapped([...at, field], `${target}.${field}`);
  }
  if (step.c2 === undefined && step.c3 === undefined && step.prompt === undefined) {
    Object.assign(step, { c2: RETRY_C2, c3: id.slice(id.indexOf(".") + 1) || id });
  }
  const conditionsKey =
    "validationConditions" in value ? "validationConditions" : "completionConditions";
  const conditions = Array.isArray(value[conditionsKey]) ? value[conditionsKey] : [];
  step.completionConditions = conditions.filter((condition, index) => {
    const name = isPlainObject(condition) ? condition.validator : undefined;
    if (typeof name === "string" && validators.has(name)) {
      mapping.mapped([...at, conditionsKey, index], `${target}.completionConditions`);
      return true;
    }
    mapping.dropped([...at, conditionsKey, index], "names no validator that was imported");
    return false;
  });
  return step;
}

/** A step closer can send: prompt words it can read, and (in climpt's spelling) a place in the flow. */
function keepStep({ at, value }: Source, hasFlow: boolean, mapping: FileMapping): boolean {
  const badWord = STEP_WORDS.find(
    (field) => value[field] !== undefined && !WORD_PATTERN.test(String(value[field])),
  );
  if (badWord !== undefined) {
    mapping.dropped(at, `its ${badWord} is not a prompt path word`);
    return false;
  }
  if (hasFlow && value.stepKind === undefined && value.transitions === undefined) {
    mapping.dropped(at, "not a flow step (no stepKind, no transitions)");
    return false;
  }
  return true;
}

function mapStep({ id, at, value }: Source, mapping: FileMapping): Json {
  const target = `steps_registry.json steps["${id}"]`;
  const step: Json = {};
  if (value.stepId === id) mapping.mapped([...at, "stepId"], `${target} (its key)`);
  for (const field of ["name", ...STEP_WORDS, "outputSchemaRef", "model"] as const) {
    if (value[field] === undefined) continue;
    step[field] = value[field];
    mapping.mapped([...at, field], `${target}.${field}`);
  }
  return step;
}

function isClosure({ value }: Source): boolean {
  return value.stepKind === "closure" || targets(value).some(([, target]) => target === null);
}

/** The transitions of a step as [intent, target]; target null ends the flow. */
export function targets(value: Json): [string, string | null | undefined][] {
  const transitions = isPlainObject(value.transitions) ? value.transitions : {};
  return Object.entries(transitions).map(([intent, transition]) => {
    const target = isPlainObject(transition) ? transition.target : undefined;
    return [intent, target === null ? null : typeof target === "string" ? target : undefined];
  });
}

/** The seeds' spelling: the step names its completion step itself. */
function givenCompletionStep(
  { id, at, value }: Source,
  completionSteps: Json,
  mapping: FileMapping,
) {
  const named = value.completionStep;
  if (typeof named !== "string" || !(named in completionSteps)) return undefined;
  mapping.mapped([...at, "completionStep"], `steps_registry.json steps["${id}"].completionStep`);
  return named;
}

function linkClosure({ id, at, value }: Source, completionSteps: Json, mapping: FileMapping) {
  const target = `steps_registry.json steps["${id}"].completionStep`;
  if (value.stepKind !== undefined) {
    mapping.mapped([...at, "stepKind"], target, "a closure step: a declaration ends it");
  }
  for (const [intent, to] of targets(value)) {
    if (to === null) {
      mapping.mapped([...at, "transitions", intent], target, "the model declares completion");
    }
  }
  if (!(id in completionSteps)) {
    const c3 = typeof value.c3 === "string" ? value.c3 : id;
    completionSteps[id] = { c2: RETRY_C2, c3, completionConditions: [] };
  }
  return id;
}

function linkHandoff({ id, at, value }: Source, closureIds: Set<string>, mapping: FileMapping) {
  if (value.stepKind !== undefined) {
    mapping.mapped([...at, "stepKind"], `steps_registry.json steps["${id}"]`, "a work step");
  }
  const handoff = targets(value).find(([, target]) => target != null && closureIds.has(target));
  if (handoff === undefined) return undefined;
  mapping.mapped(
    [...at, "transitions", handoff[0]],
    `steps_registry.json steps["${id}"].completionStep`,
    `a declaration is checked against ${handoff[1]}'s conditions`,
  );
  return handoff[1] ?? undefined;
}

function nextOf({ id, at, value }: Source, stepIds: Set<string>, mapping: FileMapping) {
  if (typeof value.next === "string" && stepIds.has(value.next)) {
    mapping.mapped([...at, "next"], `steps_registry.json steps["${id}"].next`);
    return value.next;
  }
  const next = targets(value).find(([intent]) => intent === "next")?.[1];
  if (next === id) {
    mapping.mapped([...at, "transitions", "next"], "(closer stays on a step that has no next)");
    return undefined;
  }
  if (typeof next !== "string" || !stepIds.has(next)) return undefined;
  mapping.mapped([...at, "transitions", "next"], `steps_registry.json steps["${id}"].next`);
  return next;
}
