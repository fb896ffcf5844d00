/** Test inventories from `go test`: plain, `-v` and `-json`. */

import type { InventoryTest, TestInventory, TestState } from "../ports/test-inventory.js";
import { SUITE_SEPARATOR } from "./failed-test.js";
import { countStates, makeInventory, ZERO_COUNTS } from "./inventory-test.js";

const GO_STATES: Readonly<Record<string, TestState>> = {
  PASS: "passed",
  FAIL: "failed",
  SKIP: "skipped",
  pass: "passed",
  fail: "failed",
  skip: "skipped",
};

const GO_RESULT = /^\s*--- (PASS|FAIL|SKIP): (\S+) \(\d+(?:\.\d+)?s\)/;
const GO_RUN = /^=== RUN\s/;
/** `ok  \tpkg\t0.01s`, `FAIL\tpkg [build failed]`, `?   \tpkg\t[no test files]`. */
const GO_PACKAGE =
  /^(ok|FAIL|\?)\s+(\S+)\s+(?:\d+(?:\.\d+)?s|\(cached\)|\[(?:no test files|build failed|setup failed)\])/;
/** A package where no test ran: nothing to test, nothing matched `-run`, or it did not build. */
const GO_NOTHING_RAN = /\[(?:no test files|no tests to run|build failed|setup failed)\]/;
const GO_NO_TESTS_TO_RUN = /no tests to run/;

interface GoJsonEvent {
  readonly Action: string;
  readonly Package?: string;
  readonly Test?: string;
  readonly Output?: string;
}

function readGoJsonEvents(lines: readonly string[]): GoJsonEvent[] {
  const events: GoJsonEvent[] = [];
  for (const line of lines) {
    if (!line.startsWith('{"')) continue;
    try {
      const event = JSON.parse(line) as Partial<GoJsonEvent> | null;
      if (typeof event?.Action === "string") events.push(event as GoJsonEvent);
    } catch {
      // Not an event: a line the test printed itself.
    }
  }
  return events;
}

function goName(pkg: string | undefined, test: string): string {
  return pkg ? `${pkg}${SUITE_SEPARATOR}${test}` : test;
}

function readGoJsonInventory(events: readonly GoJsonEvent[]): TestInventory {
  const tests: InventoryTest[] = [];
  let focused = false;
  for (const event of events) {
    if (event.Output !== undefined && GO_NO_TESTS_TO_RUN.test(event.Output)) focused = true;
    const state = GO_STATES[event.Action];
    if (event.Test === undefined || state === undefined) continue;
    tests.push({ name: goName(event.Package, event.Test), state });
  }
  return makeInventory({ runner: "go", tests, counts: countStates(tests), focused });
}

/**
 * Results are printed before their package's `ok`/`FAIL` line, which names the
 * package. With `-v` every test is listed; without it only failures are, and
 * the counts are unknown unless no package ran any test.
 */
export function readGoInventory(lines: readonly string[]): TestInventory | undefined {
  const events = readGoJsonEvents(lines);
  if (events.length > 0) return readGoJsonInventory(events);
  const tests: InventoryTest[] = [];
  let pending: { test: string; state: TestState }[] = [];
  let packages = 0;
  let packagesWithTests = 0;
  let verbose = false;
  for (const line of lines) {
    if (GO_RUN.test(line)) verbose = true;
    const result = GO_RESULT.exec(line);
    if (result) {
      const state = GO_STATES[result[1] as string] ?? "failed";
      if (state !== "failed") verbose = true;
      pending.push({ test: result[2] as string, state });
      continue;
    }
    const pkg = GO_PACKAGE.exec(line);
    if (!pkg) continue;
    packages += 1;
    if (!GO_NOTHING_RAN.test(line)) packagesWithTests += 1;
    for (const { test, state } of pending) tests.push({ name: goName(pkg[2], test), state });
    pending = [];
  }
  if (packages === 0) return undefined;
  for (const { test, state } of pending) tests.push({ name: test, state });
  const counts = verbose ? countStates(tests) : packagesWithTests === 0 ? ZERO_COUNTS : undefined;
  const focused = lines.some((line) => GO_NO_TESTS_TO_RUN.test(line));
  return makeInventory({ runner: "go", tests, counts, focused });
}
