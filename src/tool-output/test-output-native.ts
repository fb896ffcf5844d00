/** Failed tests from pytest, go test, cargo test and deno test. */
import { fileURLToPath } from "node:url";
import { type FailedTest, SUITE_SEPARATOR, summarizeError } from "./failed-test.js";

/** `FAILED file::Class::test - message` in pytest's short test summary. */
const PYTEST_SUMMARY = /^(?:FAILED|ERROR) (.+?)(?: - (.*))?\s*$/;
/** `____ Class.test ____` heading one failure's report. */
const PYTEST_HEADING = /^_{3,} (.+?) _{3,}$/;
const PYTEST_SECTION = /^={3,} .* ={3,}$/;

/** The `E   ` lines of each failure report, by heading. */
function readPytestReports(lines: readonly string[]): Map<string, string[]> {
  const reports = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines) {
    const heading = PYTEST_HEADING.exec(line);
    if (heading) {
      current = [];
      reports.set(heading[1] as string, current);
    } else if (PYTEST_SECTION.test(line)) {
      current = undefined;
    } else if (current && /^E\s/.test(line)) {
      current.push(line.slice(1));
    }
  }
  return reports;
}

export function parsePytestOutput(lines: readonly string[]): FailedTest[] {
  const reports = readPytestReports(lines);
  const failed: FailedTest[] = [];
  for (const line of lines) {
    const summary = PYTEST_SUMMARY.exec(line);
    const nodeId = summary?.[1];
    if (!summary || nodeId === undefined || !/\.py(?:::|$)/.test(nodeId)) continue;
    // A collection error names the file alone.
    const separator = nodeId.includes("::") ? nodeId.indexOf("::") : nodeId.length;
    const name = nodeId.slice(separator + 2) || nodeId;
    const report = reports.get(name.replace(/::/g, ".")) ?? [];
    const error = summary[2]?.trim() || summarizeError(report);
    failed.push({ name, error, file: nodeId.slice(0, separator) });
  }
  if (failed.length > 0) return failed;
  // Without a summary (`-rN`), the report headings are all there is.
  for (const [name, report] of reports) failed.push({ name, error: summarizeError(report) });
  return failed;
}

const GO_RESULT = /^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(\d+(?:\.\d+)?s\)\s*$/;
const GO_RUN = /^=== (?:RUN|CONT|PAUSE|NAME)\s+(\S+)\s*$/;
const GO_MESSAGE = /^\s+(?:\S+\.go:\d+: |panic: |Error)/;
const GO_COMPILE_ERROR = /^\S+\.go:\d+(?::\d+)?: /;
const GO_BUILD_FAILED = /^FAIL\s+(\S+) \[(build|setup) failed\]\s*$/;

function appendTo(map: Map<string, string[]>, key: string, line: string): void {
  const list = map.get(key);
  if (list) list.push(line);
  else map.set(key, [line]);
}

/** go test -json events, when the output is in that form. */
function parseGoJson(lines: readonly string[]): FailedTest[] | undefined {
  const output = new Map<string, string[]>();
  const failedNames: string[] = [];
  let sawEvent = false;
  for (const line of lines) {
    if (!line.startsWith('{"')) continue;
    let event: { Action?: unknown; Test?: unknown; Output?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (typeof event.Test !== "string" || typeof event.Action !== "string") continue;
    sawEvent = true;
    if (event.Action === "output" && typeof event.Output === "string") {
      const text = event.Output.replace(/\n$/, "");
      if (GO_MESSAGE.test(text)) appendTo(output, event.Test, text);
    }
    if (event.Action === "fail") failedNames.push(event.Test);
  }
  if (!sawEvent) return undefined;
  return failedNames.map((name) => ({ name, error: summarizeError(output.get(name) ?? []) }));
}

/** A parent test fails because a subtest failed; only the subtest says what broke. */
function dropFailedParents(failed: FailedTest[]): FailedTest[] {
  return failed.filter(
    (test) => !failed.some((other) => other.name.startsWith(`${test.name}/`)) || test.error !== "",
  );
}

export function parseGoTestOutput(lines: readonly string[]): FailedTest[] {
  const fromJson = parseGoJson(lines);
  if (fromJson) return dropFailedParents(fromJson);
  const messages = new Map<string, string[]>();
  const failedNames: string[] = [];
  const buildFailures: FailedTest[] = [];
  let compileErrors: string[] = [];
  let current: string | undefined;
  for (const line of lines) {
    const result = GO_RESULT.exec(line);
    const run = result ? undefined : GO_RUN.exec(line);
    if (result) {
      current = result[3] as string;
      if (result[2] === "FAIL") failedNames.push(current);
    } else if (run) {
      current = run[1] as string;
    } else if (current && (GO_MESSAGE.test(line) || /^panic: /.test(line))) {
      appendTo(messages, current, line);
    }
    if (line.startsWith("# ")) compileErrors = [];
    if (GO_COMPILE_ERROR.test(line)) compileErrors.push(line);
    const build = GO_BUILD_FAILED.exec(line);
    if (build) {
      const name = `${build[1]} [${build[2]} failed]`;
      buildFailures.push({ name, error: summarizeError(compileErrors) });
    }
  }
  const failed = failedNames.map((name) => ({
    name,
    error: summarizeError(messages.get(name) ?? []),
  }));
  return [...dropFailedParents(failed), ...buildFailures];
}

const CARGO_RESULT = /^test (\S+) \.\.\. FAILED\s*$/;
const CARGO_OUTPUT = /^---- (\S+) (?:stdout|stderr) ----\s*$/;
/** Rust ≥ 1.73: `thread 'x' (id) panicked at src/lib.rs:3:5:` and the message on the next lines. */
const CARGO_PANIC = /^thread '.*?'(?: \(\d+\))? panicked at (?:'(.*)', )?([^:\s]+):\d+:\d+:?\s*$/;

function readCargoFailure(lines: readonly string[], start: number): Omit<FailedTest, "name"> {
  const message: string[] = [];
  let file: string | undefined;
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (CARGO_OUTPUT.test(line) || /^failures:\s*$/.test(line)) break;
    const panic = CARGO_PANIC.exec(line);
    if (panic) {
      file = panic[2];
      if (panic[1] !== undefined) message.push(panic[1]);
      continue;
    }
    if (file !== undefined) message.push(line);
  }
  return { error: summarizeError(message), ...(file ? { file } : {}) };
}

export function parseCargoTestOutput(lines: readonly string[]): FailedTest[] {
  const reports = new Map<string, Omit<FailedTest, "name">>();
  lines.forEach((line, index) => {
    const output = CARGO_OUTPUT.exec(line);
    if (output) reports.set(output[1] as string, readCargoFailure(lines, index));
  });
  const failed: FailedTest[] = [];
  for (const line of lines) {
    const result = CARGO_RESULT.exec(line);
    if (!result) continue;
    const name = result[1] as string;
    failed.push({ name, ...(reports.get(name) ?? { error: "" }) });
  }
  return failed;
}

/** `suite ... step => ./file.ts:8:13` heading a failure in deno's ERRORS and FAILURES sections. */
const DENO_FAILURE = /^(.+?) => (\S+?):(\d+):(\d+)\s*$/;
const DENO_UNCAUGHT = /^(\S+) \(uncaught error\)\s*$/;
const DENO_SECTION = /^\s*(?:ERRORS|FAILURES)\s*$/;

function denoFile(location: string): string {
  return location.startsWith("file://") ? fileURLToPath(location) : location;
}

export function parseDenoTestOutput(lines: readonly string[]): FailedTest[] {
  const failed: FailedTest[] = [];
  const errorsAt = lines.findIndex((line) => /^\s*ERRORS\s*$/.test(line));
  if (errorsAt === -1) return failed;
  for (let index = errorsAt + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^\s*FAILURES\s*$/.test(line)) break;
    const failure = DENO_FAILURE.exec(line);
    const uncaught = failure ? undefined : DENO_UNCAUGHT.exec(line);
    if (!failure && !uncaught) continue;
    const block: string[] = [];
    for (let next = index + 1; next < lines.length; next++) {
      const blockLine = lines[next] as string;
      if (DENO_FAILURE.test(blockLine) || DENO_UNCAUGHT.test(blockLine)) break;
      if (DENO_SECTION.test(blockLine)) break;
      block.push(blockLine.replace(/^error: /, ""));
    }
    const error = summarizeError(block);
    if (failure) {
      const name = (failure[1] as string).split(" ... ").join(SUITE_SEPARATOR);
      failed.push({ name, error, file: denoFile(failure[2] as string) });
    } else if (uncaught) {
      failed.push({ name: line.trim(), error, file: denoFile(uncaught[1] as string) });
    }
  }
  return failed;
}
