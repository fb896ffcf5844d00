import type { PromptRenderer, PromptRequest } from "../ports/prompts.js";
import { type LocatedPrompt, locatePrompt, renderLocatedPrompt } from "./render-prompt.js";
import { type CompiledTemplate, compileTemplate } from "./render-template.js";

/**
 * A `renderPrompt` for one run: each lookup of the C3L fallback chain is
 * walked, and each template file read and compiled, the first time the run
 * needs it; later renders come from memory. The templates are part of the
 * definition, which a run resolves once when it starts, so an edit to a
 * template during a run takes effect in the next run.
 */
export function makePromptRenderer(): PromptRenderer {
  const lookups = new Map<string, Promise<LocatedPrompt>>();
  const templates = new Map<string, CompiledTemplate>();

  const locate = (request: PromptRequest): Promise<LocatedPrompt> => {
    const { c1, c2, c3, edition, adaptation } = request.words;
    const retry = request.retry !== undefined;
    const key = JSON.stringify([request.agentDir, c1, c2, c3, edition, adaptation, retry]);
    let located = lookups.get(key);
    if (located === undefined) {
      located = locatePrompt(request.agentDir, request.words, { retry });
      lookups.set(key, located);
      // A failed read is not kept: the next render tries again, as `renderPrompt` would.
      located.catch(() => lookups.delete(key));
    }
    return located;
  };
  const compile = (agentDir: string, source: string, templatePath: string) => {
    const key = `${agentDir}\0${templatePath}`;
    let template = templates.get(key);
    if (template === undefined) {
      template = compileTemplate(source, templatePath);
      templates.set(key, template);
    }
    return template;
  };

  return async (request) =>
    renderLocatedPrompt(request, await locate(request), (source, templatePath) =>
      compile(request.agentDir, source, templatePath),
    );
}
