/**
 * The JSON examples of the seed design documents (test/fixtures/seeds/), read
 * from their text: every ```json / ```jsonc block, what kind of example it is,
 * and an agent folder that holds it as written (docs/definition.md#seed-spellings).
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { registryFileSchema } from "../../src/definition/registry-file-schema.js";
import { isPlainObject } from "../../src/plain-object.js";
import type { ResolvedAgent } from "../../src/ports/agent.js";

export const SEEDS_DIR = path.resolve(import.meta.dirname, "../fixtures/seeds");

export type ExampleKind = "registry" | "agent" | "schema";

export interface SeedExample {
  readonly seed: string;
  /** 1-based line of the block's opening fence. */
  readonly line: number;
  readonly kind: ExampleKind;
  readonly value: Record<string, unknown>;
  /** For a schema example: where the text before it says it lives (`schemas/<file>#<schema>`). */
  readonly place?: { readonly file: string; readonly schema: string };
}

const FENCE = /^```(json|jsonc)\n([\s\S]*?)^```$/gm;
const REGISTRY_KEYS = new Set(Object.keys(registryFileSchema.shape));
const AGENT_KEYS = new Set(["name", "runner", "parameters"]);
const SCHEMA_KEYS = new Set(["properties", "required", "type", "$defs", "allOf", "$ref"]);
/** `schemas/issue.schema.json#complete.issue` in the prose before a schema example. */
const SCHEMA_PLACE = /schemas\/([A-Za-z0-9._-]+\.schema\.json)#([A-Za-z0-9._-]+)/g;
/** `"git-dirty": { ... }`: an entry the document gives in full elsewhere. */
const ELIDED = /"([^"]+)":\s*\{\s*\.\.\.\s*\}/g;

/** Every JSON example of every seed, in document order. */
export async function readSeedExamples(): Promise<SeedExample[]> {
  const seeds = (await readdir(SEEDS_DIR)).filter((name) => name.endsWith(".txt")).sort();
  const examples: SeedExample[] = [];
  for (const seed of seeds) {
    examples.push(...examplesOf(seed, await readFile(path.join(SEEDS_DIR, seed), "utf8")));
  }
  return examples;
}

function examplesOf(seed: string, text: string): SeedExample[] {
  const examples: SeedExample[] = [];
  let previousEnd = 0;
  for (const match of text.matchAll(FENCE)) {
    const body = match[2] ?? "";
    const line = text.slice(0, match.index).split("\n").length;
    const value = JSON.parse(fillElided(body, examples));
    if (!isPlainObject(value)) throw new Error(`${seed}:${line}: not a JSON object`);
    const prose = text.slice(previousEnd, match.index);
    previousEnd = match.index + match[0].length;
    const kind = kindOf(value, `${seed}:${line}`);
    const place = kind === "schema" ? schemaPlace(prose) : undefined;
    examples.push({ seed, line, kind, value, ...(place ? { place } : {}) });
  }
  return examples;
}

/** An elided entry (`{ ... }`) stands for the entry of that name given earlier in the document. */
function fillElided(body: string, earlier: readonly SeedExample[]): string {
  return body.replace(ELIDED, (_whole, key: string) => {
    const entry = earlier.map((example) => findEntry(example.value, key)).find(Boolean);
    if (entry === undefined) throw new Error(`"${key}": { ... } is given nowhere in full`);
    return `${JSON.stringify(key)}: ${JSON.stringify(entry)}`;
  });
}

function findEntry(value: unknown, key: string): unknown {
  if (!isPlainObject(value)) return undefined;
  if (key in value) return value[key];
  return Object.values(value)
    .map((child) => findEntry(child, key))
    .find(Boolean);
}

function kindOf(value: Record<string, unknown>, where: string): ExampleKind {
  const keys = Object.keys(value);
  if (keys.some((key) => AGENT_KEYS.has(key))) return "agent";
  if (keys.some((key) => REGISTRY_KEYS.has(key))) return "registry";
  if (keys.some((key) => SCHEMA_KEYS.has(key))) return "schema";
  throw new Error(`${where}: a JSON example of no known kind (keys: ${keys.join(", ")})`);
}

function schemaPlace(prose: string): SeedExample["place"] {
  const last = [...prose.matchAll(SCHEMA_PLACE)].at(-1);
  return last ? { file: last[1] ?? "", schema: last[2] ?? "" } : undefined;
}

/** The registry examples of one seed merged section by section, in document order. */
export function mergeRegistries(examples: readonly SeedExample[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const { value } of examples.filter((example) => example.kind === "registry")) {
    for (const [key, section] of Object.entries(value)) {
      const before = merged[key];
      merged[key] =
        isPlainObject(before) && isPlainObject(section) ? { ...before, ...section } : section;
    }
  }
  return merged;
}

/**
 * A registry example as written, plus what it leaves to the rest of its document: a step to
 * start at when it has none, and (with `stubValidators`) a passing command for each validator
 * a condition names but no example defines.
 */
export function completeRegistry(
  registry: Record<string, unknown>,
  stubValidators: boolean,
): Record<string, unknown> {
  const steps = isPlainObject(registry.steps) ? registry.steps : {};
  const completionSteps = {
    ...(isPlainObject(registry.completionSteps) ? registry.completionSteps : {}),
    ...Object.fromEntries(Object.entries(steps).filter(([, step]) => isCompletion(step))),
  };
  const complete: Record<string, unknown> = { ...registry };
  if (!Object.values(steps).some((step) => !isCompletion(step))) {
    const completionStep = Object.keys(completionSteps)[0];
    const start = completionStep === undefined ? {} : { completionStep };
    complete.steps = { ...steps, "seed.start": start };
  }
  if (stubValidators) Object.assign(complete, withStubValidators(complete, completionSteps));
  return complete;
}

function isCompletion(step: unknown): boolean {
  return isPlainObject(step) && "completionConditions" in step;
}

function withStubValidators(registry: Record<string, unknown>, completionSteps: object) {
  const validators = { ...(isPlainObject(registry.validators) ? registry.validators : {}) };
  const patterns = {
    ...(isPlainObject(registry.completionPatterns) ? registry.completionPatterns : {}),
  };
  for (const step of Object.values(completionSteps)) {
    for (const condition of (step as { completionConditions: { validator: string }[] })
      .completionConditions) {
      if (condition.validator in validators) continue;
      const pattern = `${condition.validator}-failed`;
      validators[condition.validator] = {
        type: "command",
        command: "true",
        successWhen: "exitCode:0",
        failurePattern: pattern,
      };
      patterns[pattern] = {};
    }
  }
  return { validators, completionPatterns: patterns };
}

/**
 * Empty stubs of every prompt the loaded agent can ask for, and of every schema its steps name
 * that no example of the document supplies; a schema example is written where its text puts it,
 * with a stub for each file its `$ref`s name.
 */
export async function writeStubs(
  agent: ResolvedAgent,
  schemaExamples: readonly SeedExample[],
): Promise<void> {
  const { registry, dir } = agent;
  const prompt = async (...words: string[]) => {
    const file = path.join(dir, "prompts", registry.c1, ...words);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "");
  };
  const schemas = new Map<string, Record<string, unknown>>();
  const nameSchema = (file: string, schema: string, value: unknown) =>
    schemas.set(file, { ...schemas.get(file), [schema]: value });
  for (const step of Object.values(registry.steps)) {
    const adaptation = step.adaptation === undefined ? "" : `_${step.adaptation}`;
    await prompt(step.c2, step.c3, `f_${step.edition}${adaptation}.md`);
    if (step.outputSchemaRef)
      nameSchema(step.outputSchemaRef.file, step.outputSchemaRef.schema, {});
  }
  for (const step of Object.values(registry.completionSteps)) {
    await prompt(step.c2, step.c3, "f_failed.md");
    if (step.closureReview)
      await prompt(step.closureReview.c2, step.closureReview.c3, "f_default.md");
    if (step.prompt) await prompt(step.prompt.c2, step.prompt.c3, "f_default.md");
    if (step.outputSchemaRef)
      nameSchema(step.outputSchemaRef.file, step.outputSchemaRef.schema, {});
  }
  for (const example of schemaExamples) {
    if (example.place === undefined) throw new Error(`${example.seed}:${example.line}: no place`);
    nameSchema(example.place.file, example.place.schema, example.value);
    for (const [file, pointer] of externalRefs(example.value)) {
      schemas.set(file, { ...stubAt(pointer), ...schemas.get(file) });
    }
  }
  await mkdir(path.join(dir, "schemas"), { recursive: true });
  for (const [file, value] of schemas) {
    await writeFile(path.join(dir, "schemas", file), JSON.stringify(value, null, 2));
  }
}

/** `common.schema.json#/$defs/nextAction` → ["common.schema.json", "/$defs/nextAction"]. */
export function externalRefs(value: unknown): [string, string][] {
  if (Array.isArray(value)) return value.flatMap(externalRefs);
  if (!isPlainObject(value)) return [];
  const own: [string, string][] =
    typeof value.$ref === "string" && !value.$ref.startsWith("#")
      ? [value.$ref.split("#") as [string, string]]
      : [];
  return [...own, ...Object.values(value).flatMap(externalRefs)];
}

/** `/$defs/nextAction` → `{ $defs: { nextAction: {} } }`. */
function stubAt(pointer: string): Record<string, unknown> {
  const keys = pointer.split("/").filter(Boolean);
  return keys.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), {});
}
