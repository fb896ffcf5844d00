import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { normalizeDefinitionText } from "../definition/definition-text.js";
import { CloserError } from "../errors.js";
import type { C3lWords, PromptRequest, RenderedPrompt } from "../ports/prompts.js";
import { BUILTIN_RETRY_TEXTS } from "./builtin-retry-texts.js";
import {
  assertC3lWords,
  BUILTIN_RETRY_PATH,
  listPromptCandidates,
  type PromptCandidate,
} from "./c3l.js";
import { type CompiledTemplate, compileTemplate } from "./render-template.js";
import { renderParams } from "./variables.js";

/** Where a prompt was found: the candidates in lookup order and the first that exists. */
export interface LocatedPrompt {
  readonly candidates: readonly PromptCandidate[];
  /** The candidate used; undefined when none exists and there is no built-in fallback. */
  readonly found?: PromptCandidate;
  /** The file text (undefined for the built-in text). */
  readonly source?: string;
}

/** Reads a template file: its text, or undefined when there is none. */
export type TemplateReader = (path: string) => Promise<string | undefined>;

/** Walks the C3L fallback chain and reads the first template file that exists. */
export async function locatePrompt(
  agentDir: string,
  words: C3lWords,
  options: { readonly retry: boolean; readonly read?: TemplateReader },
): Promise<LocatedPrompt> {
  assertC3lWords(words);
  const candidates = listPromptCandidates(words, options);
  const read = options.read ?? readIfExists;
  for (const candidate of candidates) {
    if (candidate.kind === "builtin") return { candidates, found: candidate };
    const source = await read(join(agentDir, candidate.path));
    if (source !== undefined) return { candidates, found: candidate, source };
  }
  return { candidates };
}

/** Finds the template through the C3L fallback chain and renders it strictly. */
export async function renderPrompt(request: PromptRequest): Promise<RenderedPrompt> {
  const located = await locatePrompt(request.agentDir, request.words, {
    retry: request.retry !== undefined,
  });
  return renderLocatedPrompt(request, located, compileTemplate);
}

/**
 * Renders the prompt a lookup found: its template through `compile` (which
 * may hand back a template compiled before), or the built-in retry text.
 * A lookup that found nothing is a CloserError listing where it looked.
 */
export function renderLocatedPrompt(
  request: PromptRequest,
  located: LocatedPrompt,
  compile: (source: string, templatePath: string) => CompiledTemplate,
): RenderedPrompt {
  const { found, source } = located;
  if (found === undefined) {
    const tried = located.candidates.map((candidate) => candidate.path);
    throw new CloserError("not_found", `no prompt template found; looked for ${tried.join(", ")}`, {
      file: tried[0] ?? "prompts",
      expected: "a template file",
      found: "none of the candidates",
      fix: `create ${tried[0] ?? "the template"} in the agent folder`,
    });
  }
  if (source === undefined) {
    return {
      text: renderBuiltinRetry(request.variables, request.retry),
      templatePath: BUILTIN_RETRY_PATH,
    };
  }
  return { text: compile(source, found.path).render(request.variables), templatePath: found.path };
}

/** The retry text used when an agent has no template for a pattern: the guard's own, or the generic one. */
function renderBuiltinRetry(
  variables: Readonly<Record<string, unknown>>,
  retry: PromptRequest["retry"],
): string {
  const pattern = retry?.pattern ?? String(variables.pattern ?? "unknown");
  const params = Object.fromEntries((retry?.params ?? []).map((name) => [name, variables[name]]));
  const attempt = typeof variables.attempt === "number" ? ` (attempt ${variables.attempt})` : "";
  const summary = typeof variables.previousSummary === "string" ? variables.previousSummary : "";
  const ownText = BUILTIN_RETRY_TEXTS[pattern];
  if (ownText !== undefined) {
    return [...ownText(params), ...(summary ? ["", summary] : []), ""].join("\n");
  }
  return [
    `The completion check failed with the pattern "${pattern}"${attempt}. The work is not done yet.`,
    ...(summary ? ["", summary] : []),
    "",
    "What the check found:",
    renderParams(params),
    "",
    "Fix exactly what is listed above, make sure the checks pass, then declare completion again.",
    "",
  ].join("\n");
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return normalizeDefinitionText(await readFile(path, "utf8"));
  } catch (error) {
    return noTemplate(path, error);
  }
}

/**
 * The reader of a check of every prompt at once (`closer validate`): each
 * file is read once, and synchronously: a few small files of the agent's own
 * folder, for which a round trip through Node's thread pool costs more than
 * the read (docs/cli.md#start-up).
 */
export function makeTemplateReader(): TemplateReader {
  const texts = new Map<string, string | undefined>();
  return async (path) => {
    if (!texts.has(path)) texts.set(path, readNow(path));
    return texts.get(path);
  };
}

function readNow(path: string): string | undefined {
  try {
    return normalizeDefinitionText(readFileSync(path, "utf8"));
  } catch (error) {
    return noTemplate(path, error);
  }
}

/** No file there (undefined); anything else that stops the read is the definition's error. */
function noTemplate(path: string, error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return undefined;
  throw new CloserError(
    "config_error",
    `cannot read prompt template: ${(error as Error).message}`,
    {
      file: path,
      fix: "make it a readable file",
      cause: error,
    },
  );
}
