/**
 * The keys of `runner.backend` only the openai-compatible backend reads
 * (docs/backends.md#openai-compatible), and the ones it cannot run without.
 */
import { z } from "zod";

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export const openaiCompatibleKeys = {
  baseURL: z
    .string()
    .refine(isHttpUrl, {
      error: (issue) => `${JSON.stringify(issue.input)} is not an http(s) URL`,
      params: { fix: 'write the endpoint\'s base URL up to /v1, e.g. "http://localhost:11434/v1"' },
    })
    .optional()
    .describe(
      "Base URL of the OpenAI-compatible endpoint, up to /v1 (openai-compatible backend; required there).",
    ),
  apiKeyEnv: z
    .string()
    .refine((name) => VARIABLE_NAME.test(name), {
      error: (issue) => `${JSON.stringify(issue.input)} is not the name of an environment variable`,
      params: {
        fix: 'name the variable that holds the key, e.g. "OPENAI_API_KEY", never the key itself',
      },
    })
    .meta({ pattern: VARIABLE_NAME.source })
    .optional()
    .describe(
      "Environment variable holding the endpoint's API key (openai-compatible backend); without it no key is sent.",
    ),
  maxSteps: z
    .int()
    .positive()
    .optional()
    .describe("Model calls allowed in one query of the openai-compatible backend; default 50."),
  structuredOutput: z
    .enum(["json-schema", "tool"])
    .optional()
    .describe(
      "How the openai-compatible backend asks for the step's schema: json-schema (response_format, default) or tool (a final answer tool).",
    ),
};

const EXAMPLES = {
  baseURL: 'e.g. "http://localhost:11434/v1"',
  model: 'the name the endpoint knows the model by, e.g. "qwen2.5-coder:14b"',
} as const;

/** The openai-compatible backend cannot run without an endpoint and a model to ask. */
export function requireEndpointKeys(
  backend: { readonly baseURL?: string | undefined; readonly model?: string | undefined },
  context: z.RefinementCtx,
): void {
  for (const key of ["baseURL", "model"] as const) {
    if (backend[key] !== undefined) continue;
    context.addIssue({
      code: "custom",
      path: [key],
      message: `the openai-compatible backend needs "${key}"`,
      params: { fix: `add "${key}" to runner.backend: ${EXAMPLES[key]}` },
    });
  }
}
