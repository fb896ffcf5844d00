/**
 * A completion condition's `params` (docs/completion.md#condition-params):
 * `{{name}}` in a command validator's `command` or a file validator's `path`
 * is replaced by the param's value (shell-quoted in a command); a custom
 * module receives them as `params`.
 */
import type { ValidatorDefinition } from "../ports/registry.js";

/** `{{ name }}`, a name of letters, digits and `_` (`\{{` stays literal). */
const PLACEHOLDER = /(?<!\\)\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The definition with the condition's params put in, or what is wrong. */
export type AppliedParams =
  | { readonly ok: true; readonly definition: ValidatorDefinition }
  | { readonly ok: false; readonly error: string };

/** The names of the params `text` asks for, in order, once each. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

/** The text a validator's params go into: a command's command, a file's path; custom: none. */
export function parameterizedText(definition: ValidatorDefinition): string | undefined {
  if (definition.type === "command") return definition.command;
  if (definition.type === "file") return definition.path;
  return undefined;
}

/**
 * Puts `params` into the definition's command or path. A condition without params leaves the
 * definition as written (a command may hold `{{` of its own); with params, a placeholder none
 * of them fills is an error.
 */
export function applyConditionParams(
  definition: ValidatorDefinition,
  params: Readonly<Record<string, unknown>> | undefined,
): AppliedParams {
  const text = parameterizedText(definition);
  if (text === undefined || params === undefined) return { ok: true, definition };
  const missing = placeholdersOf(text).filter((name) => !hasValue(params, name));
  if (missing.length > 0) {
    return {
      ok: false,
      error: `validator "${definition.name}" uses ${missing.map((name) => `{{${name}}}`).join(", ")} but its completion condition's params do not give it — add it to the condition's "params"`,
    };
  }
  const quote = definition.type === "command" ? shellQuote : (value: string) => value;
  const filled = text.replace(PLACEHOLDER, (_, name: string) => quote(valueText(params[name])));
  if (definition.type === "command")
    return { ok: true, definition: { ...definition, command: filled } };
  if (definition.type === "file") return { ok: true, definition: { ...definition, path: filled } };
  return { ok: true, definition };
}

function hasValue(params: Readonly<Record<string, unknown>>, name: string): boolean {
  return Object.hasOwn(params, name) && params[name] !== undefined;
}

function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** One shell word holding exactly `value`. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
