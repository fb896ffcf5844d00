import { readFile, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { FileValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import { extractParams } from "./extract-param.js";
import { elapsedMs, makeConfigErrorOutcome } from "./validator-outcome.js";

type TextTest = { ok: true; test: (text: string) => boolean } | { ok: false; error: string };

/** `contains` is plain text, or a regular expression written `/body/flags`. */
function parseContains(contains: string): TextTest {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(contains);
  if (!regex) return { ok: true, test: (text) => text.includes(contains) };
  try {
    // Without g/y a regex keeps no state between files.
    const pattern = new RegExp(regex[1] as string, (regex[2] as string).replace(/[gy]/g, ""));
    return { ok: true, test: (text) => pattern.test(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function leavesTree(path: string): boolean {
  return isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.split(/[\\/]+/).includes("..");
}

/** Characters that can make a path a glob; only such a path loads the glob library. */
const MAYBE_GLOB = /[*?[\]{}()!+@]/;

async function findMatches(cwd: string, path: string): Promise<string[]> {
  if (MAYBE_GLOB.test(path)) {
    const { glob, isDynamicPattern } = await import("tinyglobby");
    if (isDynamicPattern(path)) {
      const found = await glob(path, {
        cwd,
        dot: true,
        onlyFiles: false,
        expandDirectories: false,
      });
      return found.sort();
    }
  }
  try {
    await stat(join(cwd, path));
    return [path];
  } catch {
    return [];
  }
}

async function lacksText(cwd: string, file: string, test: (text: string) => boolean) {
  try {
    return !test(await readFile(join(cwd, file), "utf8"));
  } catch {
    return true; // a directory or an unreadable file holds no text
  }
}

/**
 * Runs a `file` validator: `path` (relative to the working tree, glob
 * allowed) must match something, and with `contains` every matched file must
 * hold that text or match that `/regex/`.
 */
export async function runFileValidator(
  definition: FileValidatorDefinition,
  context: CheckContext,
): Promise<ValidatorOutcome> {
  const startedMs = performance.now();
  const where = `validator "${definition.name}"`;
  if (leavesTree(definition.path)) {
    const message = `\`path\` "${definition.path}" of ${where} leaves the working tree — use a path relative to the working tree, without ".."`;
    return makeConfigErrorOutcome(definition, message, elapsedMs(startedMs));
  }
  const textTest =
    definition.contains === undefined ? undefined : parseContains(definition.contains);
  if (textTest && !textTest.ok) {
    const message = `\`contains\` "${definition.contains}" of ${where} is not a valid regular expression (${textTest.error}) — fix the pattern, or write plain text without surrounding slashes`;
    return makeConfigErrorOutcome(definition, message, elapsedMs(startedMs));
  }
  const matchedFiles = await findMatches(context.cwd, definition.path);
  const filesWithoutText: string[] = [];
  if (textTest?.ok) {
    for (const file of matchedFiles) {
      if (await lacksText(context.cwd, file, textTest.test)) filesWithoutText.push(file);
    }
  }
  const missingFiles = matchedFiles.length === 0 ? [definition.path] : [];
  const valid = missingFiles.length === 0 && filesWithoutText.length === 0;
  const reason =
    missingFiles.length > 0
      ? `no file matches ${definition.path}`
      : filesWithoutText.length > 0
        ? `${filesWithoutText.join(", ")} does not contain ${definition.contains}`
        : "";
  const facts = { stdout: matchedFiles.join("\n"), stderr: reason, exitCode: valid ? 0 : 1 };
  return {
    validator: definition.name,
    valid,
    ...(valid ? {} : { pattern: definition.failurePattern }),
    params: {
      path: definition.path,
      matchedFiles,
      missingFiles,
      filesWithoutText,
      ...(definition.contains === undefined ? {} : { contains: definition.contains }),
      ...(valid ? {} : { reason }),
      ...extractParams(definition.extractParams, facts),
    },
    durationMs: elapsedMs(startedMs),
  };
}
