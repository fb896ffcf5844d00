/** Failed tests from the reporters of vitest, jest and mocha (default reporters). */
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
