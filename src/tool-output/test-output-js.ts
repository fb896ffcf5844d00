/** Failed tests from the reporters of vitest, jest, mocha, uvu and ava (default reporters). */
import { type FailedTest, SUITE_SEPARATOR, summarizeError } from "./failed-test.js";

/** ` FAIL  file > suite > test`, optionally after a `|project|` label. */
const VITEST_TEST = /^\s*FAIL\s+(?:\|[^|]+\|\s+)?(\S(?:.*?\S)?) > (.+?)\s*$/;
/** ` FAIL  file [ file ]`: the file itself failed (import or syntax error). */
const VITEST_FILE = /^\s*FAIL\s+(?:\|[^|]+\|\s+)?(\S+)\s+\[ \1 \]\s*$/;
const VITEST_BLOCK_END = /^\s*⎯{3,}/;

export function parseVitestOutput(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const test = VITEST_TEST.exec(line);
    const file = test ? undefined : VITEST_FILE.exec(line);
    if (!test && !file) continue;
    const block: string[] = [];
    for (let next = index + 1; next < lines.length; next++) {
      const blockLine = lines[next] as string;
      if (VITEST_BLOCK_END.test(blockLine) || /^\s*FAIL\s/.test(blockLine)) break;
      block.push(blockLine);
    }
    const error = summarizeError(block);
    if (test) failed.push({ name: test[2] as string, error, file: test[1] as string });
    else if (file) failed.push({ name: file[1] as string, error, file: file[1] as string });
  }
  return failed;
}

const JEST_FILE = /^\s*(?:FAIL|PASS)\s+(\S.*?)(?:\s+\(\d[\d.]*\s*m?s\))?\s*$/;
const JEST_TEST = /^\s*● (.+?)\s*$/;
const JEST_BLOCK_END = /^\s*(?:Test Suites:|Summary of all failing tests)/;

export function parseJestOutput(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  let file: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fileMatch = JEST_FILE.exec(line);
    if (fileMatch) {
      file = fileMatch[1];
      continue;
    }
    const test = JEST_TEST.exec(line);
    if (!test || test[1] === "Console") continue;
    const block: string[] = [];
    for (let next = index + 1; next < lines.length; next++) {
      const blockLine = lines[next] as string;
      if (JEST_TEST.test(blockLine) || JEST_FILE.test(blockLine)) break;
      if (JEST_BLOCK_END.test(blockLine)) break;
      block.push(blockLine);
    }
    const name = (test[1] as string).split(" › ").join(SUITE_SEPARATOR);
    failed.push({ name, error: summarizeError(block), ...(file ? { file } : {}) });
  }
  return failed;
}

const MOCHA_FAILING = /^\s*\d+ failing\s*$/;
const MOCHA_ENTRY = /^\s*(\d+)\) (.*)$/;

/** Reads a mocha title, which spans lines (one per suite level) up to the one ending in `:`. */
function readMochaTitle(
  lines: readonly string[],
  start: number,
  first: string,
): { parts: string[]; end: number } {
  const parts = [first.trim()];
  let index = start;
  while (!(parts.at(-1) as string).endsWith(":") && index + 1 < lines.length) {
    const next = (lines[index + 1] as string).trim();
    if (next === "") break;
    parts.push(next);
    index += 1;
  }
  const last = parts.at(-1) as string;
  if (last.endsWith(":")) parts[parts.length - 1] = last.slice(0, -1);
  return { parts, end: index };
}

export function parseMochaOutput(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  const start = lines.findIndex((line) => MOCHA_FAILING.test(line));
  if (start === -1) return failed;
  let expected = 1;
  let current: { name: string; block: string[] } | undefined;
  const flush = () => {
    if (current) failed.push({ name: current.name, error: summarizeError(current.block) });
  };
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    const entry = MOCHA_ENTRY.exec(line);
    if (entry && Number(entry[1]) === expected) {
      flush();
      const title = readMochaTitle(lines, index, entry[2] as string);
      current = { name: title.parts.join(SUITE_SEPARATOR), block: [] };
      index = title.end;
      expected += 1;
    } else {
      current?.block.push(line);
    }
  }
  flush();
  return failed;
}

/** uvu's ` FAIL  "name"` (` FAIL  suite  "name"`), its message on the lines below. */
export const UVU_FAILURE = /^\s*FAIL\s+(?:(\S.*?)\s+)?"(.*)"\s*$/;

export function parseUvuOutput(lines: readonly string[]): FailedTest[] {
  if (!lines.some((line) => /^\s+Total:\s+\d+\s*$/.test(line))) return [];
  const failed: FailedTest[] = [];
  for (let index = 0; index < lines.length; index++) {
    const failure = UVU_FAILURE.exec(lines[index] as string);
    if (!failure) continue;
    const block: string[] = [];
    for (let next = index + 1; next < lines.length; next++) {
      const blockLine = lines[next] as string;
      if (UVU_FAILURE.test(blockLine) || /^\s+Total:/.test(blockLine)) break;
      // The diff's `++expected` / `--actual` lines follow the message.
      if (/^\s*(?:\+\+|--)/.test(blockLine)) break;
      block.push(blockLine.replace(/\s+\(\w+\)\s*$/, "")); // the assertion's name, `(is)`
    }
    const name = [failure[1], failure[2] as string].filter(Boolean).join(SUITE_SEPARATOR);
    failed.push({ name, error: summarizeError(block) });
  }
  return failed;
}

const AVA_FAILED = /^\s+✘ \[(?:fail|unexpected pass)\]:? (\S.*?)\s*$/;
const AVA_REPORTS_START = /^\s*─\s*$/;

/** ava's report of one failure: its title, `file:line`, a code frame, then the message. */
function readAvaReport(lines: readonly string[], start: number): string {
  const block: string[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (AVA_REPORTS_START.test(line) || /^\s+›\s/.test(line)) break;
    if (/^\s+\S+:\d+\s*$/.test(line) || /^\s+\d+:\s/.test(line)) continue;
    if (/^\s*(?:Error thrown in test:|Difference \(- actual, \+ expected\):)\s*$/.test(line)) {
      block.push(line.trim().replace(/:$/, ""));
      continue;
    }
    block.push(line);
  }
  return summarizeError(block);
}

export function parseAvaOutput(lines: readonly string[]): FailedTest[] {
  const reportsAt = lines.findIndex((line) => AVA_REPORTS_START.test(line));
  const titles = new Map<string, number>();
  lines.forEach((line, index) => {
    if (reportsAt !== -1 && index > reportsAt && /^ {2}\S/.test(line))
      titles.set(line.trim(), index);
  });
  const failed: FailedTest[] = [];
  for (const line of lines) {
    const listed = AVA_FAILED.exec(line)?.[1];
    if (listed === undefined) continue;
    const title =
      [...titles.keys()].find((candidate) => listed === candidate) ??
      [...titles.keys()].find((candidate) => listed.startsWith(`${candidate} `)) ??
      listed;
    const at = titles.get(title);
    const error = at === undefined ? "" : readAvaReport(lines, at);
    failed.push({ name: title.split(" › ").join(SUITE_SEPARATOR), error });
  }
  return failed;
}
