import { WORD_PATTERN } from "../definition/path-word.js";
import { CloserError } from "../errors.js";
import type { C3lWords } from "../ports/prompts.js";

/** Where a set of words came from, so a bad word can be reported at its place in the definition. */
export interface WordSource {
  readonly file?: string;
  /** JSON path of the object holding the words, e.g. `steps["initial.issue"]`. */
  readonly jsonPath?: string;
}

/** One place the lookup tries, in order. */
export interface PromptCandidate {
  /** Path relative to the agent folder, or `builtin:retry` for the built-in generic text. */
  readonly path: string;
  readonly kind: "adaptation" | "edition" | "failed" | "builtin";
}

export const BUILTIN_RETRY_PATH = "builtin:retry";

const WORD_FIELDS = ["c1", "c2", "c3", "edition", "adaptation"] as const;

/** Why a word is refused, or undefined when it is a valid path word. */
export function explainBadWord(value: string): string | undefined {
  if (value === "") return "it is empty";
  if (value.includes("..")) return 'it contains ".." (a path must not leave the agent folder)';
  if (value.includes("/") || value.includes("\\")) return "it contains a path separator";
  if (/[A-Z]/.test(value)) return "it contains uppercase letters";
  if (!WORD_PATTERN.test(value)) return `it does not match ${WORD_PATTERN.source}`;
  return undefined;
}

/** Throws a CloserError naming the first word that could escape the agent folder or is malformed. */
export function assertC3lWords(words: C3lWords, source: WordSource = {}): void {
  const problems = findBadWords(words, source);
  const first = problems[0];
  if (first) throw first;
}

/** Every malformed word of a (possibly partial) set, as CloserErrors, to report all at once. */
export function findBadWords(words: Partial<C3lWords>, source: WordSource = {}): CloserError[] {
  const problems: CloserError[] = [];
  for (const field of WORD_FIELDS) {
    const value = words[field];
    if (value === undefined) continue;
    const reason = explainBadWord(value);
    if (reason === undefined) continue;
    const jsonPath = source.jsonPath ? `${source.jsonPath}.${field}` : field;
    problems.push(
      new CloserError(
        "validation_error",
        `prompt path word ${field} = ${JSON.stringify(value)} is not allowed: ${reason}`,
        {
          ...(source.file === undefined ? {} : { file: source.file }),
          jsonPath,
          expected: `a word matching ${WORD_PATTERN.source} without ".."`,
          found: JSON.stringify(value),
          fix: `rename ${field} to lowercase letters, digits, ".", "_" or "-" (e.g. "default")`,
        },
      ),
    );
  }
  return problems;
}

/**
 * The lookup order of docs/definition.md#prompt-lookup: the file with the adaptation, then `f_{edition}.md`,
 * then for retry prompts `f_failed.md` and the built-in generic text.
 */
export function listPromptCandidates(
  words: C3lWords,
  options: { readonly retry: boolean },
): PromptCandidate[] {
  const folder = `prompts/${words.c1}/${words.c2}/${words.c3}`;
  const candidates: PromptCandidate[] = [];
  const add = (path: string, kind: PromptCandidate["kind"]): void => {
    if (!candidates.some((candidate) => candidate.path === path)) candidates.push({ path, kind });
  };
  if (words.adaptation !== undefined && words.adaptation !== "") {
    add(`${folder}/f_${words.edition}_${words.adaptation}.md`, "adaptation");
  }
  add(`${folder}/f_${words.edition}.md`, "edition");
  if (options.retry) {
    add(`${folder}/f_failed.md`, "failed");
    add(BUILTIN_RETRY_PATH, "builtin");
  }
  return candidates;
}
