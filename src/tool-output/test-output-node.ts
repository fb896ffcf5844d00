/** Failed tests from `node --test` (spec reporter) and from TAP (node's tap reporter and others). */
import { type FailedTest, SUITE_SEPARATOR, stripDuration, summarizeError } from "./failed-test.js";
import { indentOf } from "./suite-stack.js";

const SPEC_LINE = /^(\s*)([▶✔✖﹣]) (.+)$/;
const SPEC_HAS_DURATION = /\(\d+(?:\.\d+)?m?s\)\s*$/;
const SPEC_SUMMARY = /^\s*✖ failing tests:\s*$/;

/** Lines under a result line that are indented deeper than it: its error report. */
function readIndentedBlock(lines: readonly string[], start: number, indent: number): string[] {
  const block: string[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() !== "" && indentOf(line) <= indent) break;
    block.push(line);
  }
  return block;
}

export function parseNodeSpecOutput(lines: readonly string[]): FailedTest[] {
  const summary = lines.findIndex((line) => SPEC_SUMMARY.test(line));
  const listed = parseSpecListing(summary === -1 ? lines : lines.slice(0, summary));
  return summary === -1 ? listed : withSummaryErrors(listed, lines.slice(summary + 1));
}

/**
 * Node 24 prints a failure's error only in the closing `✖ failing tests:` section,
 * each test under a `test at <file>:<line>` line: the errors the listing lacks are read there,
 * in order, by the test's own name.
 */
function withSummaryErrors(listed: FailedTest[], summary: readonly string[]): FailedTest[] {
  const errors: { name: string; error: string }[] = [];
  for (let index = 0; index < summary.length; index++) {
    const match = SPEC_LINE.exec(summary[index] as string);
    if (match?.[2] !== "✖" || !SPEC_HAS_DURATION.test(match[3] as string)) continue;
    const indent = (match[1] as string).length;
    const error = summarizeError(readIndentedBlock(summary, index, indent));
    errors.push({ name: stripDuration(match[3] as string), error });
  }
  return listed.map((test) => {
    if (test.error !== "") return test;
    const own = test.name.split(SUITE_SEPARATOR).at(-1);
    const found = errors.findIndex((candidate) => candidate.name === own);
    if (found === -1) return test;
    const [{ error }] = errors.splice(found, 1) as [{ name: string; error: string }];
    return { ...test, error };
  });
}

function parseSpecListing(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  const suites: { indent: number; name: string }[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const match = SPEC_LINE.exec(line);
    if (!match) continue;
    const indent = (match[1] as string).length;
    const mark = match[2];
    const name = stripDuration(match[3] as string);
    const top = suites.at(-1);
    if (mark === "✖" && top?.indent === indent && top.name === name) {
      suites.pop(); // the suite's own closing line
      continue;
    }
    while ((suites.at(-1)?.indent ?? -1) >= indent) suites.pop();
    if (mark === "▶") suites.push({ indent, name });
    if (mark !== "✖" || !SPEC_HAS_DURATION.test(match[3] as string)) continue;
    const path = [...suites.map((suite) => suite.name), name].join(SUITE_SEPARATOR);
    failed.push({ name: path, error: summarizeError(readIndentedBlock(lines, index, indent)) });
  }
  return failed;
}

const TAP_SUBTEST = /^(\s*)# Subtest: (.+)$/;
/** A result line; after ` # ` comes a directive (`SKIP`, `TODO`) or a comment such as node-tap's `time=4ms`. */
const TAP_RESULT = /^(\s*)(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*?)(?:\s+#\s*(?:(SKIP|TODO)\b.*|.*))?$/i;

function unquoteYaml(value: string): string {
  const text = value.trim();
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2) {
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  return text;
}

export interface TapDiagnostics {
  readonly fields: Map<string, string>;
  readonly end: number;
}

/** Reads the YAML block (`---` … `...`) after a result line into top-level fields. */
export function readTapDiagnostics(lines: readonly string[], start: number): TapDiagnostics {
  const fields = new Map<string, string>();
  if ((lines[start + 1] ?? "").trim() !== "---") return { fields, end: start };
  let index = start + 2;
  let keyIndent = -1;
  while (index < lines.length && (lines[index] as string).trim() !== "...") {
    const line = lines[index] as string;
    const field = /^(\s*)([A-Za-z_]\w*):\s?(.*)$/.exec(line);
    if (field && (keyIndent === -1 || (field[1] as string).length === keyIndent)) {
      keyIndent = (field[1] as string).length;
      const value = field[3] as string;
      if (/^[|>][-+]?$/.test(value.trim())) {
        const block = readIndentedBlock(lines, index, keyIndent);
        fields.set(field[2] as string, block.map((blockLine) => blockLine.trim()).join("\n"));
        index += block.length + 1;
        continue;
      }
      fields.set(field[2] as string, unquoteYaml(value));
    }
    index += 1;
  }
  return { fields, end: index };
}

function isSuiteFailure(fields: ReadonlyMap<string, string>): boolean {
  return fields.get("type") === "suite" || fields.get("failureType") === "subtestsFailed";
}

/** One TAP test point: the subtests around it, its title, its result, directive and diagnostics. */
export interface TapPoint {
  readonly suites: readonly string[];
  /** Its own title, else the name of the subtest it closes, else `(unnamed)`. */
  readonly title: string;
  readonly ok: boolean;
  /** `SKIP` or `TODO`, when the point carries one. */
  readonly directive?: string;
  readonly fields: ReadonlyMap<string, string>;
  /** It closes a subtest whose own points came before it (a file, a test of assertions). */
  readonly parent: boolean;
}

/** Every test point of a TAP stream (node:test's included), nested subtests named by their path. */
export function readTapPoints(lines: readonly string[]): TapPoint[] {
  const points: TapPoint[] = [];
  const subtests: { indent: number; name: string; firstPoint: number }[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const subtest = TAP_SUBTEST.exec(line);
    if (subtest) {
      const indent = (subtest[1] as string).length;
      while ((subtests.at(-1)?.indent ?? -1) >= indent) subtests.pop();
      subtests.push({ indent, name: (subtest[2] as string).trim(), firstPoint: points.length });
      continue;
    }
    const result = TAP_RESULT.exec(line);
    if (!result) continue;
    const indent = (result[1] as string).length;
    while ((subtests.at(-1)?.indent ?? -1) > indent) subtests.pop();
    const own = subtests.at(-1)?.indent === indent ? subtests.pop() : undefined;
    const diagnostics = readTapDiagnostics(lines, index);
    index = diagnostics.end;
    const directive = result[4]?.toUpperCase();
    points.push({
      suites: subtests.map((entry) => entry.name),
      title: (result[3] as string).trim() || own?.name || "(unnamed)",
      ok: result[2]?.toLowerCase() === "ok",
      ...(directive === undefined ? {} : { directive }),
      fields: diagnostics.fields,
      parent: own !== undefined && points.length > own.firstPoint,
    });
  }
  return points;
}

/** A subtest fails because a point inside it failed; only that point says what broke. */
function hasFailedChild(point: TapPoint, failed: readonly TapPoint[]): boolean {
  const path = [...point.suites, point.title];
  return failed.some(
    (other) =>
      other.suites.length > path.length - 1 &&
      path.every((part, index) => other.suites[index] === part),
  );
}

export function parseTapOutput(lines: readonly string[]): FailedTest[] {
  const failed = readTapPoints(lines).filter(
    (point) => !point.ok && point.directive === undefined && !isSuiteFailure(point.fields),
  );
  return failed
    .filter((point) => !(point.parent && hasFailedChild(point, failed)))
    .map((point) => {
      const message = point.fields.get("error") ?? point.fields.get("message") ?? "";
      const location = point.fields.get("location")?.replace(/:\d+:\d+$/, "");
      return {
        name: [...point.suites, point.title].join(SUITE_SEPARATOR),
        error: summarizeError(message.split("\n")),
        ...(location ? { file: location } : {}),
      };
    });
}
