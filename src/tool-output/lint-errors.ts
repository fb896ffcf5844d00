import { splitOutputLines, stripAnsi } from "./output-lines.js";

/** One linter finding as a retry prompt needs it. */
export interface LintProblem {
  readonly file: string;
  /** 1-based; 0 when the linter gave none. */
  readonly line: number;
  readonly column?: number;
  /** The rule id; empty for a parse error, which has none. */
  readonly rule: string;
  readonly message: string;
  readonly severity?: "error" | "warning";
}

/** `  3:11  error  Expected '===' and instead saw '=='  eqeqeq` under a file heading. */
const STYLISH_PROBLEM = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$/;
const STYLISH_SUMMARY = /^[✖✕×]\s+\d+ problems?/;
/** `/path/a.js:3:11: message [Error/eqeqeq]` (eslint-formatter-unix). */
const UNIX_PROBLEM = /^(.+?):(\d+):(\d+): (.*?) \[(Error|Warning)(?:\/(.+?))?\]\s*$/;
/** `src/a.js:2:7 lint/correctness/noUnusedVariables  FIXABLE  ━━━`, `src/a.js:1:11 parse ━━━` (biome). */
const BIOME_HEADING = /^(\S.*?):(\d+):(\d+) ((?:lint|assist|suppressions)\/\S+|parse(?= ))/;
/** `src/a.js format ━━━`, `./src/a.js organizeImports ━━━` (biome): about a whole file. */
const BIOME_FILE_HEADING = /^(\S+) (format|organizeImports) ━/;
/** The message under a biome heading; the mark is `×`/`✖` for an error, `!`/`⚠` for a warning. */
const BIOME_MESSAGE = /^\s+([×✖!⚠])\s+(.*)$/;

interface EslintJsonMessage {
  ruleId?: unknown;
  severity?: unknown;
  message?: unknown;
  line?: unknown;
  column?: unknown;
}

function parseEslintJson(lines: readonly string[]): LintProblem[] {
  const problems: LintProblem[] = [];
  for (const line of lines) {
    if (!line.startsWith('[{"filePath"')) continue;
    let results: unknown;
    try {
      results = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(results)) continue;
    for (const result of results as { filePath?: unknown; messages?: unknown }[]) {
      if (typeof result?.filePath !== "string" || !Array.isArray(result.messages)) continue;
      for (const message of result.messages as EslintJsonMessage[]) {
        problems.push({
          file: result.filePath,
          line: typeof message.line === "number" ? message.line : 0,
          ...(typeof message.column === "number" ? { column: message.column } : {}),
          rule: typeof message.ruleId === "string" ? message.ruleId : "",
          message: String(message.message ?? ""),
          severity: message.severity === 1 ? "warning" : "error",
        });
      }
    }
  }
  return problems;
}

function parseLine(line: string, file: string | undefined): LintProblem | undefined {
  const unix = UNIX_PROBLEM.exec(line);
  if (unix) {
    return {
      file: unix[1] as string,
      line: Number(unix[2]),
      column: Number(unix[3]),
      rule: unix[6] ?? "",
      message: unix[4] as string,
      severity: unix[5] === "Warning" ? "warning" : "error",
    };
  }
  const stylish = file === undefined ? undefined : STYLISH_PROBLEM.exec(line);
  if (!stylish || file === undefined) return undefined;
  return {
    file,
    line: Number(stylish[1]),
    column: Number(stylish[2]),
    rule: stylish[5] ?? "",
    message: stylish[4] as string,
    severity: stylish[3] as "error" | "warning",
  };
}

function parseBiome(lines: readonly string[], start: number, heading: RegExpExecArray) {
  const next = lines.slice(start + 1, start + 4).find((line) => BIOME_MESSAGE.test(line));
  const message = next ? BIOME_MESSAGE.exec(next) : null;
  const located = heading.length > 3;
  return {
    file: heading[1] as string,
    line: located ? Number(heading[2]) : 0,
    ...(located ? { column: Number(heading[3]) } : {}),
    rule: heading[located ? 4 : 2] as string,
    message: message?.[2]?.trim() ?? "",
    severity:
      message?.[1] === "×" || message?.[1] === "✖" ? ("error" as const) : ("warning" as const),
  };
}

/** Problems from eslint (stylish, unix and json formatters) and biome. Never throws. */
export function parseLintErrors(text: string): LintProblem[] {
  // JSON comes on one long line, so it is read before lines are cut for parsing.
  const problems = parseEslintJson(stripAnsi(text).split("\n"));
  const lines = splitOutputLines(text);
  let file: string | undefined;
  lines.forEach((line, index) => {
    const biome = BIOME_HEADING.exec(line) ?? BIOME_FILE_HEADING.exec(line);
    if (biome) {
      problems.push(parseBiome(lines, index, biome));
      return;
    }
    const problem = parseLine(line, file);
    if (problem) {
      problems.push(problem);
    } else if (/^\S/.test(line) && !STYLISH_SUMMARY.test(line)) {
      file = line.trim(); // a stylish file heading, or text that resets it
    } else if (line.trim() === "") {
      file = undefined;
    }
  });
  return problems;
}
