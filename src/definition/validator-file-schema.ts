/**
 * The raw shape of a validator in steps_registry.json (docs/completion.md#validators): command,
 * file or custom, with the pattern it fails into and the params it extracts.
 */

import { z } from "zod";
import { EXTRACTOR_NAMES } from "../ports/registry.js";
import { insidePath } from "./inside-path.js";
import { parseSuccessWhen, SUCCESS_WHEN_GRAMMAR } from "./success-when.js";

const SUCCESS_WHEN_PATTERN = "^(empty|not-empty|exitCode:[0-9]+|contains:.+|matches:.+)$";

/** Whether text written as `/…/flags` is a valid regular expression (other text always is). */
export function isValidRegexText(text: string): boolean {
  const match = /^\/(.*)\/([a-z]*)$/s.exec(text);
  if (!match) return true;
  try {
    new RegExp(match[1] ?? "", match[2]);
    return true;
  } catch {
    return false;
  }
}

const successWhenSchema = z
  .string()
  .superRefine((text, context) => {
    const parsed = parseSuccessWhen(text);
    if (!parsed.ok) {
      context.addIssue({
        code: "custom",
        message: parsed.error,
        params: { fix: `use one of: ${SUCCESS_WHEN_GRAMMAR}` },
      });
    }
  })
  .meta({ pattern: SUCCESS_WHEN_PATTERN })
  .describe(`When the command counts as passing: ${SUCCESS_WHEN_GRAMMAR}.`);

const extractParamsSchema = z
  .record(z.string(), z.enum(EXTRACTOR_NAMES))
  .default({})
  .describe("Template param → extractor that fills it from the validator's result.");

const failurePatternSchema = z
  .string()
  .min(1)
  .describe("Pattern (a key of completionPatterns) whose retry prompt is sent when this fails.");

const rerunsSchema = z
  .int()
  .min(0)
  .default(0)
  .describe(
    "Times a failing run is repeated; a re-run that passes on an unchanged working tree counts, marked flaky (docs/completion.md#flaky-checks).",
  );

const cacheSchema = z
  .boolean()
  .default(true)
  .describe(
    "false: run on every declaration, even on a working tree this run already checked (docs/completion.md#cached-verdicts).",
  );

const commandValidatorSchema = z
  .strictObject({
    type: z.literal("command").describe("Run a shell command in the working tree."),
    command: z.string().min(1).describe("Shell command, run in the working tree."),
    successWhen: successWhenSchema.default("exitCode:0"),
    timeoutMs: z
      .int()
      .positive()
      .optional()
      .describe("Timeout of the command; default runner.budgets.validatorTimeoutMs."),
    failurePattern: failurePatternSchema,
    extractParams: extractParamsSchema,
    reruns: rerunsSchema,
    cache: cacheSchema,
  })
  .describe("A command validator.");

const fileValidatorSchema = z
  .strictObject({
    type: z.literal("file").describe("Check that a file exists (and optionally what it holds)."),
    path: insidePath("the working tree", "docs/report.md").describe(
      "Path relative to the working tree; a glob is allowed.",
    ),
    contains: z
      .string()
      .refine(isValidRegexText, { message: "not a valid regular expression" })
      .optional()
      .describe("Text the file must contain; `/…/flags` is a regular expression."),
    failurePattern: failurePatternSchema,
    extractParams: extractParamsSchema,
    reruns: rerunsSchema,
    cache: cacheSchema,
  })
  .describe("A file validator.");

const customValidatorSchema = z
  .strictObject({
    type: z.literal("custom").describe("Call a module's exported check function."),
    module: insidePath("the agent folder", "validators/check.mjs").describe(
      "Module path relative to the agent folder; its function returns {valid, params}.",
    ),
    failurePattern: failurePatternSchema,
    reruns: rerunsSchema,
    cache: cacheSchema,
  })
  .describe(
    "A custom validator: its module returns the params itself, so it has no extractParams.",
  );

/** A validator of steps_registry.json, by its `type`. */
export const validatorSchema = z.discriminatedUnion("type", [
  commandValidatorSchema,
  fileValidatorSchema,
  customValidatorSchema,
]);
