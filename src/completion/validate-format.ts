import { isPlainObject } from "../plain-object.js";
import type { SchemaChecker } from "../ports/loop-ports.js";
import type { ResponseFormat } from "../ports/registry.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { findJsonObjects, type ResponseContent } from "./json-in-text.js";
import { validateStructuredOutput } from "./schema-validators.js";

/** The result of the format check (docs/completion.md#format-check). */
export interface FormatCheck {
  readonly valid: boolean;
  /** What is wrong, in one line, when not valid. */
  readonly error?: string;
  /** The object, match or action block that satisfied the format. */
  readonly extracted?: unknown;
}

export interface FormatOptions {
  /** For `json`: the step's resolved output schema, checked with ajv. */
  readonly schema?: JsonSchema;
  /** The run's schema cache. */
  readonly validators?: SchemaChecker;
}

const ACTION_BLOCK = /```agent-action[^\S\r\n]*\r?\n([\s\S]*?)\r?\n?```/g;

/** FormatValidator (docs/completion.md#format-check): does the response have the completion step's `responseFormat`? */
export function validateFormat(
  response: ResponseContent,
  format: ResponseFormat,
  options: FormatOptions = {},
): FormatCheck {
  switch (format.type) {
    case "json":
      return checkJson(response, format.requiredFields, options);
    case "text-pattern":
      return checkTextPattern(response.text, format.pattern);
    case "action-block":
      return checkActionBlock(response.text, format.actionType);
  }
}

/** The expected format in words, for the `format-error` retry prompt. */
export function describeFormat(format: ResponseFormat): string {
  switch (format.type) {
    case "json":
      return format.requiredFields.length === 0
        ? "a JSON object"
        : `a JSON object with the fields ${format.requiredFields.join(", ")}`;
    case "text-pattern":
      return `text matching /${format.pattern}/m`;
    case "action-block":
      return `a fenced \`\`\`agent-action block holding a JSON object${
        format.actionType === undefined ? "" : ` whose "type" is "${format.actionType}"`
      }`;
  }
}

function checkJson(
  response: ResponseContent,
  requiredFields: readonly string[],
  options: FormatOptions,
): FormatCheck {
  const candidates = isPlainObject(response.structuredOutput)
    ? [response.structuredOutput]
    : findJsonObjects(response.text).map((found) => found.value);
  if (candidates.length === 0) {
    return { valid: false, error: "no structured output and no JSON object in the response text" };
  }
  const complete = candidates.filter(
    (candidate) => missingFields(candidate, requiredFields).length === 0,
  );
  const object = complete.at(-1);
  if (object === undefined) {
    const missing = missingFields(candidates.at(-1) ?? {}, requiredFields);
    return { valid: false, error: `the JSON response lacks the field(s) ${missing.join(", ")}` };
  }
  if (options.schema !== undefined) {
    const check = validateStructuredOutput(object, options.schema, options.validators);
    if (!check.valid) {
      return { valid: false, error: `the JSON response does not match its schema: ${check.error}` };
    }
  }
  return { valid: true, extracted: object };
}

/** Fields may be dotted paths (`next_action.action`). */
function missingFields(object: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields.filter((field) => {
    let value: unknown = object;
    for (const key of field.split(".")) {
      if (!isPlainObject(value) || !(key in value)) return true;
      value = value[key];
    }
    return value === undefined;
  });
}

function checkTextPattern(text: string, pattern: string): FormatCheck {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "m");
  } catch (error) {
    return { valid: false, error: `invalid pattern /${pattern}/: ${(error as Error).message}` };
  }
  const match = regex.exec(text);
  if (match === null)
    return { valid: false, error: `the response text does not match /${pattern}/m` };
  return { valid: true, extracted: { match: match[0], groups: match.slice(1) } };
}

function checkActionBlock(text: string, actionType: string | undefined): FormatCheck {
  const bodies = [...text.matchAll(ACTION_BLOCK)].map((match) => match[1] ?? "");
  if (bodies.length === 0)
    return { valid: false, error: "no ```agent-action block in the response" };
  const actions: Record<string, unknown>[] = [];
  const problems: string[] = [];
  for (const body of bodies) {
    try {
      const value: unknown = JSON.parse(body);
      if (isPlainObject(value)) actions.push(value);
      else problems.push("an agent-action block holds JSON that is not an object");
    } catch (error) {
      problems.push(`an agent-action block is not valid JSON: ${(error as Error).message}`);
    }
  }
  const matching = actions.filter(
    (action) => actionType === undefined || actionTypeOf(action) === actionType,
  );
  const extracted = matching.at(-1);
  if (extracted !== undefined) return { valid: true, extracted };
  if (actions.length === 0) return { valid: false, error: problems[0] };
  const found = actions.map((action) => JSON.stringify(actionTypeOf(action) ?? null)).join(", ");
  return {
    valid: false,
    error: `no agent-action block of type "${actionType}" (found type ${found})`,
  };
}

/** An action block names its kind in `type`; `action` is accepted when `type` is absent. */
function actionTypeOf(action: Record<string, unknown>): unknown {
  return action.type ?? action.action;
}
