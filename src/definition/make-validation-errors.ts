import type { z } from "zod";
import { CloserError } from "../errors.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { formatJsonPath, valueAtPath } from "./json-path.js";
import { closestKey, knownKeysAt } from "./known-keys.js";
import { WORD_PATTERN } from "./path-word.js";

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** What a validation error needs besides the issue: where it is and what the file holds. */
export interface ValidationContext {
  readonly file: string;
  /** The parsed file, to show what was found. */
  readonly data: unknown;
  /** The file's JSON Schema, to name the keys allowed where an unknown key was found. */
  readonly jsonSchema: () => JsonSchema;
}

/** Turns zod issues into one CloserError per problem, each naming file, JSON path and fix. */
export function makeValidationErrors(
  issues: readonly Issue[],
  context: ValidationContext,
): CloserError[] {
  return issues.flatMap((issue) => errorsOfIssue(issue, [], context));
}

function errorsOfIssue(issue: Issue, prefix: Path, context: ValidationContext): CloserError[] {
  const path = [...prefix, ...issue.path];
  const found = valueAtPath(context.data, path);
  const make = (message: string, fields: { expected?: string; fix?: string } = {}) => [
    problem(context.file, path, message, { ...fields, found: describeValue(found) }),
  ];
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => unknownKeyError(key, path, context));
    case "invalid_union":
      return unionErrors(issue, path, context);
    case "invalid_type":
      return typeErrors(issue.expected, path, found, context);
    case "invalid_value": {
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(", ");
      const words = issue.values.filter((value) => typeof value === "string");
      const suggestion = typeof found === "string" ? closestKey(found, words) : undefined;
      return make(`${describeValue(found)} is not one of: ${allowed}`, {
        expected: `one of ${allowed}`,
        fix: suggestion ? `did you mean "${suggestion}"?` : `use one of: ${allowed}`,
      });
    }
    case "invalid_key":
      return [
        patternError({ what: "key", found: String(path.at(-1)) }, issue.issues[0], path, context),
      ];
    case "invalid_format":
      return [patternError({ what: "value", found }, issue, path, context)];
    case "too_small":
    case "too_big": {
      const { message, fix } = sizeProblem(issue, found);
      return make(message, { fix });
    }
    case "custom": {
      const fix = (issue.params as { fix?: unknown } | undefined)?.fix;
      return make(issue.message, { fix: typeof fix === "string" ? fix : undefined });
    }
    default:
      return make(issue.message);
  }
}

function problem(
  file: string,
  path: Path,
  message: string,
  fields: { expected?: string; found?: string; fix?: string },
): CloserError {
  const jsonPath = formatJsonPath(path);
  return new CloserError("validation_error", message, {
    file,
    jsonPath: jsonPath === "" ? undefined : jsonPath,
    ...fields,
  });
}

function unknownKeyError(key: string, path: Path, context: ValidationContext): CloserError {
  const known = knownKeysAt(context.jsonSchema(), path, context.data);
  // A key known here but refused is one another kind of entry allows (`next` in a completion step).
  const suggestion = known.includes(key) ? undefined : closestKey(key, known);
  const fix = suggestion
    ? `did you mean "${suggestion}"? Rename the key`
    : known.length > 0
      ? `remove it; the keys allowed here are: ${known.join(", ")}`
      : "remove it";
  return problem(context.file, [...path, key], `unknown key "${key}"`, {
    expected: known.length > 0 ? `one of ${known.join(", ")}` : undefined,
    found: key,
    fix,
  });
}

function unionErrors(
  issue: Extract<Issue, { code: "invalid_union" }>,
  path: Path,
  context: ValidationContext,
): CloserError[] {
  const found = valueAtPath(context.data, path);
  if (issue.errors.length === 0) {
    const { discriminator, options } = issue as { discriminator?: string; options?: unknown[] };
    const allowed = (options ?? []).map((option) => JSON.stringify(option)).join(", ");
    const message =
      found === undefined
        ? `missing required key "${discriminator ?? String(path.at(-1))}"`
        : `unknown ${discriminator ?? "value"} ${JSON.stringify(found)}`;
    return [
      problem(context.file, path, message, {
        expected: `one of ${allowed}`,
        found: describeValue(found),
        fix:
          found === undefined
            ? `add "${discriminator}": one of ${allowed}`
            : `use one of: ${allowed}`,
      }),
    ];
  }
  const branchTypes = issue.errors.map((branch) =>
    branch.length === 1 && branch[0]?.code === "invalid_type" && branch[0].path.length === 0
      ? branch[0].expected
      : undefined,
  );
  if (branchTypes.every((type) => type !== undefined)) {
    return typeErrors([...new Set(branchTypes)].join(" or "), path, found, context);
  }
  const closest = issue.errors.reduce((best, branch) =>
    branchDistance(branch) < branchDistance(best) ? branch : best,
  );
  return closest.flatMap((inner) => errorsOfIssue(inner, path, context));
}

/**
 * How far a union branch is from what the author wrote: a key the branch
 * forbids outright (`never`) rules it out; otherwise each problem, and each
 * unknown key, counts one.
 */
function branchDistance(branch: readonly Issue[]): number {
  let distance = 0;
  for (const issue of branch) {
    if (issue.code === "invalid_type" && issue.expected === "never") distance += 1_000;
    distance += issue.code === "unrecognized_keys" ? issue.keys.length : 1;
  }
  return distance;
}

function typeErrors(
  expected: string,
  path: Path,
  found: unknown,
  context: ValidationContext,
): CloserError[] {
  const wanted = expected.split(" or ").map(withArticle).join(" or ");
  const parent = valueAtPath(context.data, path.slice(0, -1));
  if (found === undefined && path.length > 0 && parent !== null && typeof parent === "object") {
    const key = String(path.at(-1));
    return [
      problem(context.file, path, `missing required key "${key}"`, {
        expected: wanted,
        found: "nothing",
        fix: `add "${key}" (${wanted})`,
      }),
    ];
  }
  const message =
    path.length === 0
      ? `the file must hold ${wanted}, found ${describeValue(found)}`
      : `expected ${wanted}, found ${describeValue(found)}`;
  return [
    problem(context.file, path, message, {
      expected: wanted,
      found: describeValue(found),
      fix: `change it to ${wanted}`,
    }),
  ];
}

function withArticle(type: string): string {
  const names: Record<string, string> = {
    int: "an integer",
    object: "an object",
    array: "an array",
    string: "a string",
    number: "a number",
    boolean: "a boolean (true or false)",
  };
  return names[type] ?? type;
}

/** What did not match a pattern: a key of an object, or a value. */
interface Mismatch {
  readonly what: "key" | "value";
  readonly found: unknown;
}

function patternError(
  { what, found }: Mismatch,
  rule: Issue | undefined,
  path: Path,
  context: ValidationContext,
): CloserError {
  const pattern = rule && "pattern" in rule ? String(rule.pattern) : undefined;
  const subject = what === "key" ? `the key ${describeValue(found)}` : describeValue(found);
  const fields = {
    expected: pattern ? `a string matching ${pattern}` : undefined,
    found: describeValue(found),
  };
  if (pattern === String(WORD_PATTERN)) {
    const suggestion = typeof found === "string" ? toWord(found) : "";
    return problem(
      context.file,
      path,
      `${subject} is not a valid name (it becomes part of a file path)`,
      {
        ...fields,
        fix: `use lowercase letters, digits, ".", "_" and "-", starting with a letter or digit${suggestion ? `, e.g. "${suggestion}"` : ""}`,
      },
    );
  }
  return problem(
    context.file,
    path,
    `${subject} does not match ${pattern ?? "the expected format"}`,
    {
      ...fields,
      fix: what === "key" ? `rename the key to match ${pattern}` : `change it to match ${pattern}`,
    },
  );
}

function toWord(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/-+$/, "");
}

function sizeProblem(
  issue: Extract<Issue, { code: "too_small" | "too_big" }>,
  found: unknown,
): { message: string; fix: string } {
  const small = issue.code === "too_small";
  const limit = Number(small ? issue.minimum : issue.maximum);
  const requirement = bound(small, issue.inclusive, limit);
  if (issue.origin === "string") {
    return small && limit === 1
      ? { message: "must not be empty", fix: "give a non-empty string, or remove the key" }
      : { message: `length must be ${requirement}`, fix: `make it ${requirement} characters long` };
  }
  if (issue.origin === "array") {
    return small && limit === 1
      ? { message: "must have at least one item", fix: "add an item" }
      : { message: `must have ${requirement} items`, fix: `give ${requirement} items` };
  }
  return {
    message: `must be ${requirement}, found ${describeValue(found)}`,
    fix: `use a number ${requirement}`,
  };
}

function bound(small: boolean, inclusive: boolean | undefined, limit: number): string {
  if (small) return inclusive === false ? `greater than ${limit}` : `at least ${limit}`;
  return inclusive === false ? `less than ${limit}` : `at most ${limit}`;
}

/** A short description of a JSON value for messages: the value itself when small. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value !== null && typeof value === "object") return "an object";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
