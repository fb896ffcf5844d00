import { parseLintErrors } from "./lint-errors.js";
import { splitOutputLines } from "./output-lines.js";
import { parseTestOutput } from "./test-output.js";
import { parseTypeErrors } from "./type-errors.js";

/** How many lines a quote of a check's output keeps by default. */
export const MEANINGFUL_LINES = 5;

/** No quoted line needs more: a longer one is cut. */
const LINE_MAX_CHARS = 300;

/** A check prints at most 8 MiB; its head and its tail are read, where runners print what failed. */
const READ_MAX_CHARS = 256 * 1024;

/**
 * What a package manager prints around the script it runs, and never the
 * script's own words: npm's and pnpm's `> proj@1.0.0 lint` / `> biome check .`,
 * yarn 1's `yarn run v1.22.22`, `$ biome check .`, `Done in 0.52s.` and its
 * pointer to the docs.
 */
const BANNER = [
  /^> \S/,
  /^yarn run v\d/,
  /^\$ \S/,
  /^Done in \d[\d.]*m?s\.?$/,
  /^info Visit https:\/\/yarnpkg\.com\//,
  /^warning package\.json: /,
];

/**
 * A package manager's trailer after a failing script: `npm error …` (`npm ERR!`
 * before npm 9), pnpm's ` ELIFECYCLE  Command failed with exit code 1.`,
 * yarn 1's `error Command failed with exit code 1.`. Quoted only when the
 * check printed nothing else (`npm error Missing script: "lint"`).
 */
const TRAILER = [
  /^npm (?:ERR!|error|warn|WARN|notice)(?:\s|$)/,
  /^\s*ELIFECYCLE\b/,
  /^error Command failed with (?:exit code|signal)\b/,
];

/** A line of rules, boxes or underlines only. */
const DECORATION = /^[\s━─═╌┄\-_=*~^│|·.]*$/;

/** The words of an error in most tools' output. */
const ERROR_WORD = /\b(?:error|Error|ERROR|failed|FAILED|FAIL|panicked|not found)\b/;

/** The shortest finding text a line is matched by: shorter names would match unrelated lines. */
const MARK_MIN_CHARS = 3;

/**
 * The lines of a check's output that say what it found, for a reason or a
 * message that quotes the check: the lines the extractors recognise (a
 * compiler's or a linter's problem, a failing test's name) or that carry an
 * error's words, in output order; else the first lines it printed. A
 * package manager's banner and blank or decorative lines are never quoted, nor
 * its trailer unless nothing else was printed. Each line is trimmed and cut
 * at 300 characters; at most `maxLines` are returned.
 */
export function meaningfulLines(text: string, maxLines = MEANINGFUL_LINES): string[] {
  // Only the head and the tail are read: a check may print megabytes.
  const shown = readable(text);
  const lines = splitOutputLines(shown, LINE_MAX_CHARS).map((line) => line.trimEnd());
  const said = lines.filter(
    (line) => !DECORATION.test(line) && !BANNER.some((banner) => banner.test(line)),
  );
  const own = said.filter((line) => !TRAILER.some((trailer) => trailer.test(line)));
  if (own.length === 0) return unique(said.filter(saysMore)).slice(0, maxLines);
  const marks = findingMarks(shown);
  const recognised = own.filter(
    (line) => ERROR_WORD.test(line) || marks.some((mark) => line.includes(mark)),
  );
  return unique(recognised.length > 0 ? recognised : own).slice(0, maxLines);
}

/** The meaningful lines as one line (` / ` between them), for a reason. */
export function quoteOutput(text: string, maxLines = MEANINGFUL_LINES): string {
  return meaningfulLines(text, maxLines).join(" / ");
}

/** Texts by which a line shows an extractor's finding: a problem's place or message, a test's name. */
function findingMarks(text: string): string[] {
  const lint = parseLintErrors(text).flatMap((problem) => [
    ...(problem.line > 0 ? [`${problem.file}:${problem.line}`] : []),
    problem.message,
  ]);
  const types = parseTypeErrors(text).map((error) => error.message.split("\n")[0] ?? "");
  const tests = parseTestOutput(text).map((test) => test.name);
  return [...lint, ...types, ...tests].filter((mark) => mark.trim().length >= MARK_MIN_CHARS);
}

/** A trailer line that says more than its prefix (`npm error` alone says nothing). */
function saysMore(line: string): boolean {
  return line.replace(/^\s*(?:npm (?:ERR!|error|warn|WARN|notice))\s*/, "") !== "";
}

function readable(text: string): string {
  if (text.length <= 2 * READ_MAX_CHARS) return text;
  return `${text.slice(0, READ_MAX_CHARS)}\n${text.slice(-READ_MAX_CHARS)}`;
}

function unique(lines: readonly string[]): string[] {
  return [...new Set(lines.map((line) => line.trim()))];
}
