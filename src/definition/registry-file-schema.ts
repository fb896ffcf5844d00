/**
 * The raw shape of steps_registry.json. The same schema validates the file and
 * generates schemas/steps_registry.schema.json, so the field docs below are what
 * an editor shows on hover.
 */
import { z } from "zod";
import type { OnFailure } from "../ports/registry.js";
import { backendConfigSchema } from "./agent-file-schema.js";
import { insidePath } from "./inside-path.js";
import { WORD_PATTERN } from "./path-word.js";
import { isValidRegexText, validatorSchema } from "./validator-file-schema.js";

/** What a failed check does when a completion step does not say (docs/retry.md#on-failure): the one place it is written. */
export const DEFAULT_ON_FAILURE: OnFailure = Object.freeze({ action: "retry", maxAttempts: 3 });

function word(description: string) {
  return z.string().regex(WORD_PATTERN).describe(description);
}

const patternSchema = z
  .strictObject({
    description: z.string().default("").describe("What failed, for people reading the record."),
    edition: word("Edition of the retry prompt: f_<edition>_<adaptation>.md.").default("failed"),
    adaptation: word("Adaptation of the retry prompt; default: the pattern's name.").optional(),
    params: z
      .array(z.string())
      .default([])
      .describe("Variables the retry template needs, filled by the validators' extractParams."),
  })
  .describe("A failure pattern: selects the retry prompt and names the params it needs.");

const outputSchemaRefSchema = z
  .strictObject({
    file: insidePath("the schemas folder", "issue.schema.json").describe(
      "Schema file, relative to the agent's schemas/ folder.",
    ),
    schema: z
      .string()
      .min(1)
      .describe("A top-level key, a $defs/definitions name, or a #/… JSON pointer in the file."),
  })
  .describe("The JSON Schema of the step's structured output.");

const stepSchema = z
  .strictObject({
    stepId: z.string().optional().describe("The step's id; if given, it must equal its key."),
    name: z.string().optional().describe("Display name; default: the step id."),
    c2: word("Prompt folder word 2; default: the part of the id before the first dot.").optional(),
    c3: word("Prompt folder word 3; default: the part of the id after the first dot.").optional(),
    edition: word("Prompt edition: f_<edition>.md.").default("default"),
    adaptation: word("Prompt adaptation: f_<edition>_<adaptation>.md.").optional(),
    outputSchemaRef: outputSchemaRefSchema.optional(),
    next: z
      .string()
      .optional()
      .describe("Step to go to when the model does not declare completion; default: stay."),
    completionStep: z
      .string()
      .optional()
      .describe("Completion step checked when the model declares completion."),
    model: z.string().optional().describe("Model for this step; default: runner.backend.model."),
    completionConditions: z
      .never()
      .optional()
      .describe("Only a completion step has completionConditions."),
  })
  .describe("A step: a named prompt and its output schema.");

const responseFormatSchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("json"),
      requiredFields: z
        .array(z.string())
        .default([])
        .describe("Fields the structured output must have."),
    }),
    z.strictObject({
      type: z.literal("text-pattern"),
      pattern: z
        .string()
        .refine((text) => isValidRegexText(`/${text}/`), {
          message: "not a valid regular expression",
        })
        .describe("Regular expression the final text must match."),
    }),
    z.strictObject({
      type: z.literal("action-block"),
      actionType: z.string().optional().describe("Required type of the agent-action block."),
    }),
  ])
  .describe("Format the declaration must have before the conditions are checked.");

const conditionSchema = z
  .strictObject({
    validator: z.string().min(1).describe("A key of validators."),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "Values for this condition's validator: {{name}} in its command or path, params of a custom module (docs/completion.md#condition-params).",
      ),
  })
  .describe("A completion condition.");

const completionStepSchema = z
  .strictObject({
    stepId: z.string().optional().describe("The step's id; if given, it must equal its key."),
    name: z.string().optional().describe("Display name; default: the step id."),
    c2: word("Folder word 2 of this step's retry prompts (e.g. retry).").optional(),
    c3: word("Folder word 3 of this step's retry prompts (e.g. issue).").optional(),
    prompt: z
      .strictObject({
        c1: word("Must equal the registry's c1.").optional(),
        c2: word("Folder word 2 of this step's own prompt (e.g. closure)."),
        c3: word("Folder word 3 of this step's own prompt (e.g. issue)."),
        edition: word(
          "Edition: f_<edition>.md, falling back to f_default.md; default default.",
        ).optional(),
      })
      .optional()
      .describe(
        "The completion prompt: sent when a step declares completion against this step, its answer is the declaration checked (docs/completion.md#completion-prompt); without c2/c3 the retry prompts are in retry/<prompt.c3>.",
      ),
    outputSchemaRef: outputSchemaRefSchema.optional(),
    responseFormat: responseFormatSchema.optional(),
    maxFormatRetries: z
      .int()
      .min(0)
      .optional()
      .describe("Format retries before going on to the conditions; default 3."),
    check: z
      .strictObject({
        responseFormat: responseFormatSchema.optional(),
        onFail: z
          .strictObject({
            maxRetries: z.int().min(0).optional().describe("Same as maxFormatRetries."),
          })
          .optional(),
      })
      .optional()
      .describe("Another spelling of responseFormat and maxFormatRetries."),
    completionConditions: z
      .array(conditionSchema)
      .describe(
        "Validators run after a completion signal (at once, up to concurrency); the first failure in this order decides.",
      ),
    concurrency: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Validators of completionConditions run at once; default all, 1 = one after another (docs/completion.md#concurrency).",
      ),
    closureReview: z
      .strictObject({
        c2: word("Folder word 2."),
        c3: word("Folder word 3."),
        session: z
          .enum(["fresh", "worker"])
          .default("fresh")
          .describe(
            "fresh: a new session with none of the worker's history; worker: the worker's own.",
          ),
        maxRejections: z
          .int()
          .positive()
          .default(3)
          .describe("Rejections by the review before the run ends blocked."),
        backend: backendConfigSchema
          .optional()
          .describe("Another backend kind or model for the review; default: the run's backend."),
      })
      .optional()
      .describe("After the validators pass, ask the model for a checklist review."),
    onFailure: z
      .strictObject({
        action: z
          .enum(["retry", "abort", "skip"])
          .default(DEFAULT_ON_FAILURE.action)
          .describe("retry: send the retry prompt; abort: stop; skip: accept with a warning."),
        maxAttempts: z
          .int()
          .positive()
          .default(DEFAULT_ON_FAILURE.maxAttempts)
          .describe("Consecutive failed checks before retries_exhausted."),
      })
      .optional()
      .describe("What a failed check does; default {action: retry, maxAttempts: 3}."),
    onFail: z
      .strictObject({
        retry: z.boolean().default(true).describe("false: abort on a failed check."),
        maxAttempts: z
          .int()
          .positive()
          .default(DEFAULT_ON_FAILURE.maxAttempts)
          .describe("Consecutive failed checks allowed."),
      })
      .optional()
      .describe("Another spelling of onFailure."),
  })
  .superRefine((step, context) => {
    const conflicts: [unknown, unknown, string, string][] = [
      [step.onFailure, step.onFail, "onFailure", "onFail"],
      [step.responseFormat, step.check?.responseFormat, "responseFormat", "check.responseFormat"],
      [
        step.maxFormatRetries,
        step.check?.onFail?.maxRetries,
        "maxFormatRetries",
        "check.onFail.maxRetries",
      ],
    ];
    for (const [first, second, firstName, secondName] of conflicts) {
      if (first !== undefined && second !== undefined) {
        context.addIssue({
          code: "custom",
          path: secondName.split("."),
          message: `${firstName} and ${secondName} say the same thing; give only one`,
          params: { fix: `remove ${secondName}` },
        });
      }
    }
  })
  .describe("A completion step: the conditions checked when the model declares completion.");

/** The raw steps_registry.json schema. */
export const registryFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe("JSON Schema of this file, for editors."),
    agentId: z.string().optional().describe("Agent id; default: the agent's name."),
    c1: word("First prompt folder word under prompts/.").default("steps"),
    entryStep: z.string().optional().describe("The first step; default: the first step of steps."),
    completionSignal: z
      .strictObject({
        status: z
          .array(z.string())
          .default(["completed"])
          .describe("A structured output `status` in this list declares completion."),
        action: z
          .array(z.string())
          .default(["complete", "closing"])
          .describe("A `next_action.action` in this list declares completion."),
      })
      .prefault({})
      .describe("How the model declares completion."),
    completionPatterns: z
      .record(z.string().regex(WORD_PATTERN), patternSchema)
      .default({})
      .describe("Failure patterns by name."),
    validators: z.record(z.string(), validatorSchema).default({}).describe("Validators by name."),
    steps: z
      .record(z.string(), z.union([stepSchema, completionStepSchema]))
      .default({})
      .describe("Steps by id; a step with completionConditions is a completion step."),
    completionSteps: z
      .record(z.string(), completionStepSchema)
      .default({})
      .describe("Completion steps by id."),
    protectedPaths: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Globs (relative to the working tree) the model must not change, besides closer's defaults; a `!` glob takes paths out.",
      ),
  })
  .meta({ title: "closer steps_registry.json" })
  .describe("Steps, completion steps, validators and failure patterns of a closer agent.");

/** steps_registry.json after validation and defaults, before normalization. */
export type RegistryFile = z.output<typeof registryFileSchema>;
export type RegistryStepEntry = RegistryFile["steps"][string];
export type RegistryCompletionStep = RegistryFile["completionSteps"][string];
export type RegistryValidator = RegistryFile["validators"][string];
