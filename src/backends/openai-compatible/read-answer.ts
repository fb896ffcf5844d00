/**
 * The structured answer of one query, read and checked again with ajv before
 * it reaches the loop (docs/backends.md#openai-compatible-structured-output).
 */
import { lastJsonObject } from "../../completion/json-in-text.js";
import type { JsonSchema } from "../../ports/runner-config.js";
import { dropNullOptionals } from "../agent-cli/strict-schema.js";
import type { StructuredOutputValidator } from "../claude-sdk/structured-output.js";

/** What the model answered for the schema: the answer tool's input, or the final text. */
export type AnswerCandidate =
  | { readonly via: "tool"; readonly input: unknown }
  | { readonly via: "text"; readonly text: string }
  | { readonly via: "none" };

export type CheckedAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * The final text as JSON: all of it, or else the last JSON object in it (a
 * model without `response_format` may fence its answer or talk around it).
 */
function parsed(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const found = lastJsonObject(text);
    if (found !== undefined) return { ok: true, value: found };
    return { ok: false, problem: `the final text is not JSON: ${(error as Error).message}` };
  }
}

/** The candidate as a value that fits `schema`, or why it does not. */
export function checkAnswer(
  candidate: AnswerCandidate,
  schema: JsonSchema,
  validate: StructuredOutputValidator,
): CheckedAnswer {
  if (candidate.via === "none") {
    return { ok: false, problems: ["the model gave no answer in the step's schema"] };
  }
  let value: unknown;
  if (candidate.via === "tool") value = candidate.input;
  else {
    const read = parsed(candidate.text.trim());
    if (!read.ok) return { ok: false, problems: [read.problem] };
    // The strict schema sent stands optional properties in as null.
    value = dropNullOptionals(read.value, schema);
  }
  const check = validate(schema, value);
  return check.valid ? { ok: true, value } : { ok: false, problems: check.errors };
}
