import type { ExtractorName } from "../ports/registry.js";
import { parseChangedFiles, parseUntrackedFiles } from "../tool-output/git-status.js";
import { parseLintErrors } from "../tool-output/lint-errors.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { parseTestInventory } from "../tool-output/test-inventory.js";
import { parseTestOutput } from "../tool-output/test-output.js";
import { parseTypeErrors } from "../tool-output/type-errors.js";

/** What a check left behind, as the extractors read it. */
export interface ExtractFacts {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/**
 * Computes one template param from a check's output (docs/completion.md#extract-params). The text is
 * whole; cutting it for the prompt is the retry stage's job. Never throws.
 */
export function extractParam(name: ExtractorName, facts: ExtractFacts): unknown {
  const output = joinOutput(facts.stdout, facts.stderr);
  switch (name) {
    case "stdout":
      return facts.stdout;
    case "stderr":
      return facts.stderr;
    case "output":
      return output;
    case "exitCode":
      return facts.exitCode;
    case "parseChangedFiles":
      return parseChangedFiles(facts.stdout);
    case "parseUntrackedFiles":
      return parseUntrackedFiles(facts.stdout);
    case "parseTestOutput":
      return parseTestOutput(output);
    case "parseTestInventory":
      return parseTestInventory(output) ?? null;
    case "parseTypeErrors":
      return parseTypeErrors(output);
    case "parseLintErrors":
      return parseLintErrors(output);
  }
}

/** Every param of an `extractParams` map, computed from the same facts. */
export function extractParams(
  mapping: Readonly<Record<string, ExtractorName>>,
  facts: ExtractFacts,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [param, extractor] of Object.entries(mapping)) {
    params[param] = extractParam(extractor, facts);
  }
  return params;
}
