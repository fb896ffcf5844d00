import { WORD_PATTERN } from "../../definition/path-word.js";
import { parseSuccessWhen } from "../../definition/success-when.js";
import { isPlainObject } from "../../plain-object.js";
import { EXTRACTOR_NAMES } from "../../ports/registry.js";
import { BUILTIN_PATTERNS } from "../../retry/builtin-patterns.js";
import { completionSignalOf } from "./completion-signal-of.js";
import type { AgentJsonFacts } from "./map-agent-json.js";
import { mapSteps } from "./map-steps.js";
import type { FileMapping } from "./mapping-report.js";

type Json = Record<string, unknown>;

/** climpt's C3L layout, which is closer's own (docs/definition.md#c3l-paths). */
const CLOSER_PATH_TEMPLATES: Record<string, string> = {
  pathTemplate: "{c1}/{c2}/{c3}/f_{edition}_{adaptation}.md",
  pathTemplateNoAdaptation: "{c1}/{c2}/{c3}/f_{edition}.md",
};
const EXTRACTORS = new Set<string>(EXTRACTOR_NAMES);
/** What an extractor closer lacks is given instead: the whole output of the check. */
const STAND_IN_EXTRACTOR = "output";

/** A pattern renamed because closer produces one of that name itself; its templates follow. */
export interface RenamedPattern {
  readonly from: string;
  readonly to: string;
  readonly edition: string;
  /** The template adaptation before and after: `f_<edition>_<adaptation>.md`. */
  readonly adaptation: { readonly from: string; readonly to: string };
}

/**
 * climpt's steps_registry.json (`failurePatterns`, `validators`, `validationSteps`,
 * `steps` with `transitions`, `entryStepMapping`; and the seeds' spellings) as closer's
 * (docs/cli.md#import-climpt).
 */
export function mapRegistry(
  source: Json,
  name: string,
  facts: AgentJsonFacts,
  mapping: FileMapping,
): { registry: Json; renamed: RenamedPattern[] } {
  const registry: Json = { agentId: name };
  if (source.agentId !== undefined) {
    mapping.mapped(["agentId"], "steps_registry.json agentId", "the name of the folder written");
  }
  if (typeof source.c1 === "string" && WORD_PATTERN.test(source.c1)) {
    registry.c1 = source.c1;
    mapping.mapped(["c1"], "steps_registry.json c1");
  }
  for (const [key, template] of Object.entries(CLOSER_PATH_TEMPLATES)) {
    if (source[key] === template) mapping.mapped([key], "closer's fixed prompt paths");
  }
  const renamed: RenamedPattern[] = [];
  const patterns = mapPatterns(source, mapping, renamed);
  registry.completionPatterns = patterns;
  const patternNames = new Map(Object.keys(patterns).map((key) => [key, key]));
  for (const rename of renamed) patternNames.set(rename.from, rename.to);
  const validators = mapValidators(source.validators, patternNames, mapping);
  registry.validators = validators;
  const { steps, completionSteps, flow } = mapSteps(
    source,
    new Set(Object.keys(validators)),
    mapping,
  );
  registry.steps = steps;
  registry.completionSteps = completionSteps;
  const entryStep = mapEntryStep(source, facts, new Set(Object.keys(steps)), mapping);
  if (entryStep !== undefined) registry.entryStep = entryStep;
  const signal = completionSignalOf(flow, entryStep ?? Object.keys(steps)[0], mapping);
  if (signal !== undefined) registry.completionSignal = signal;
  return { registry, renamed };
}

function mapPatterns(source: Json, mapping: FileMapping, renamed: RenamedPattern[]): Json {
  const patterns: Json = {};
  for (const key of ["failurePatterns", "completionPatterns"] as const) {
    const section = source[key];
    if (!isPlainObject(section)) continue;
    for (const [name, pattern] of Object.entries(section)) {
      const at = [key, name];
      if (!WORD_PATTERN.test(name) || !isPlainObject(pattern)) {
        mapping.dropped(at, "a pattern name must be a prompt path word");
        continue;
      }
      const closerName = name in BUILTIN_PATTERNS ? `check-${name}` : name;
      const target = `steps_registry.json completionPatterns["${closerName}"]`;
      const closerPattern: Json = {};
      for (const field of ["description", "edition", "adaptation"] as const) {
        const value = pattern[field];
        if (typeof value !== "string") continue;
        if (field !== "description" && !WORD_PATTERN.test(value)) continue;
        closerPattern[field] = value;
        mapping.mapped([...at, field], `${target}.${field}`);
      }
      if (Array.isArray(pattern.params) && pattern.params.every((p) => typeof p === "string")) {
        closerPattern.params = pattern.params;
        mapping.mapped([...at, "params"], `${target}.params`);
      }
      if (closerName !== name) {
        const adaptation = String(closerPattern.adaptation ?? name);
        const edition = String(closerPattern.edition ?? "failed");
        closerPattern.adaptation = adaptation === name ? closerName : adaptation;
        renamed.push({
          from: name,
          to: closerName,
          edition,
          adaptation: { from: adaptation, to: String(closerPattern.adaptation) },
        });
        mapping.mapped(at, target, `${name} is closer's own pattern; its templates are renamed`);
      }
      patterns[closerName] = closerPattern;
    }
  }
  return patterns;
}

function mapValidators(
  source: unknown,
  patterns: ReadonlyMap<string, string>,
  mapping: FileMapping,
): Json {
  if (!isPlainObject(source)) return {};
  const validators: Json = {};
  for (const [name, validator] of Object.entries(source)) {
    const at = ["validators", name];
    const unusable = whyUnusable(validator, patterns);
    if (unusable !== undefined || !isPlainObject(validator)) {
      mapping.dropped(at, unusable ?? "not an object");
      continue;
    }
    const target = `steps_registry.json validators.${name}`;
    for (const field of ["type", "command", "successWhen", "failurePattern"] as const) {
      mapping.mapped([...at, field], `${target}.${field}`);
    }
    const extractParams: Json = {};
    const extracts = isPlainObject(validator.extractParams) ? validator.extractParams : {};
    for (const [param, extractor] of Object.entries(extracts)) {
      const known = EXTRACTORS.has(String(extractor));
      extractParams[param] = known ? extractor : STAND_IN_EXTRACTOR;
      mapping.mapped(
        [...at, "extractParams", param],
        `${target}.extractParams.${param}`,
        known ? undefined : `closer has no ${String(extractor)}: the check's whole output is given`,
      );
    }
    validators[name] = {
      type: "command",
      command: validator.command,
      successWhen: validator.successWhen,
      failurePattern: patterns.get(String(validator.failurePattern)),
      extractParams,
    };
  }
  return validators;
}

/** Why a climpt validator cannot become a closer command validator; undefined when it can. */
function whyUnusable(
  validator: unknown,
  patterns: ReadonlyMap<string, string>,
): string | undefined {
  if (!isPlainObject(validator)) return "not an object";
  if (validator.type !== "command" || typeof validator.command !== "string") {
    return "only command validators are imported";
  }
  if (typeof validator.successWhen !== "string" || !parseSuccessWhen(validator.successWhen).ok) {
    return `closer reads no successWhen ${JSON.stringify(validator.successWhen)}`;
  }
  if (typeof validator.failurePattern !== "string" || !patterns.has(validator.failurePattern)) {
    return "its failurePattern names no pattern of the registry";
  }
  return undefined;
}

/** runner.verdict.type picks the first step from entryStepMapping; the seeds' entryStep is used as written. */
function mapEntryStep(
  source: Json,
  facts: AgentJsonFacts,
  steps: Set<string>,
  mapping: FileMapping,
): string | undefined {
  if (typeof source.entryStep === "string" && steps.has(source.entryStep)) {
    mapping.mapped(["entryStep"], "steps_registry.json entryStep");
    return source.entryStep;
  }
  const table = isPlainObject(source.entryStepMapping) ? source.entryStepMapping : {};
  const verdictType = facts.verdictType;
  if (verdictType !== undefined && steps.has(String(table[verdictType]))) {
    mapping.mapped(
      ["entryStepMapping", verdictType],
      "steps_registry.json entryStep",
      `agent.json runner.verdict.type is ${verdictType}`,
    );
    return String(table[verdictType]);
  }
  return undefined;
}
