import { type FailedTest, stripDuration } from "./failed-test.js";
import { splitOutputLines } from "./output-lines.js";
import {
  parseAvaOutput,
  parseJestOutput,
  parseMochaOutput,
  parseUvuOutput,
  parseVitestOutput,
} from "./test-output-js.js";
import {
  parseCargoTestOutput,
  parseDenoTestOutput,
  parseGoTestOutput,
  parsePytestOutput,
} from "./test-output-native.js";
import { parseNodeSpecOutput, parseTapOutput } from "./test-output-node.js";

export type { FailedTest } from "./failed-test.js";

/** Each parser answers only for the format it recognizes (an empty list otherwise). */
const RUNNER_PARSERS: readonly ((lines: readonly string[]) => FailedTest[])[] = [
  parseVitestOutput,
  parseJestOutput,
  parseMochaOutput,
  parseUvuOutput,
  parseAvaOutput,
  parseNodeSpecOutput,
  parseTapOutput,
  parsePytestOutput,
  parseGoTestOutput,
  parseCargoTestOutput,
  parseDenoTestOutput,
];

/** Lines that say "this failed" in most runners' words. */
const GENERIC_FAILURE = /^\s*(?:FAIL(?:ED)?\b:?|✗|✖|×|✕|not ok\b(?:\s+\d+)?(?:\s+-)?)\s+(\S.*)$/;

/** The fallback for an unknown runner: each line that reads like a failure names a test. */
function parseGenericTestOutput(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  for (const line of lines) {
    const match = GENERIC_FAILURE.exec(line);
    if (match) failed.push({ name: stripDuration(match[1] as string), error: "" });
  }
  return failed;
}

function mergeDuplicates(failed: readonly FailedTest[]): FailedTest[] {
  const byKey = new Map<string, FailedTest>();
  for (const test of failed) {
    const key = `${test.file ?? ""}\u0000${test.name}`;
    const known = byKey.get(key);
    if (!known || (known.error === "" && test.error !== "")) byKey.set(key, test);
  }
  return [...byKey.values()];
}

/**
 * Failed tests named in a test run's output: vitest, jest, node:test (spec
 * and TAP), mocha, uvu, ava, node-tap, pytest, go test, deno test and cargo test, with or without
 * color. When no runner's format is recognized, lines that read like failures
 * (FAIL, ✗, not ok, …) are taken as names. Never throws.
 */
export function parseTestOutput(text: string): FailedTest[] {
  const lines = splitOutputLines(text);
  const found = mergeDuplicates(RUNNER_PARSERS.flatMap((parse) => parse(lines)));
  return found.length > 0 ? found : mergeDuplicates(parseGenericTestOutput(lines));
}
