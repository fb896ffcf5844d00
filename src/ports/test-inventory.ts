/** What became of one test; a failing `todo` test is still `todo`, an expected failure is `skipped`. */
export type TestState = "passed" | "failed" | "skipped" | "todo";

/** One test the runner named in its output. */
export interface InventoryTest {
  /** A stable identifier: the file and suite path where the runner prints them, joined by ` > `. */
  readonly name: string;
  readonly state: TestState;
}

/** How many tests ended in each state. */
export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  /** Skipped, pending, ignored and expected-to-fail tests. */
  readonly skipped: number;
  readonly todo: number;
}

export type TestRunner =
  | "vitest"
  | "jest"
  | "mocha"
  | "uvu"
  | "ava"
  | "node-test"
  | "tap"
  | "pytest"
  | "go"
  | "cargo"
  | "deno";

/** The tests one run of a test runner reports. */
export interface TestInventory {
  /** The runner, or for `tap` the format, whose output this was. */
  readonly runner: TestRunner;
  /** Tests listed by name in the output (verbose reporters list every test; default reporters often list only failures). */
  readonly tests: readonly InventoryTest[];
  /** From the runner's summary line(s) when present; without one, absent unless the listing itself is the whole run. */
  readonly counts?: TestCounts;
  /** True when `tests` names every test the run counts, so names can be compared. */
  readonly complete: boolean;
  /** A focus or filter (`.only`, a name filter, deselected or filtered-out tests) is visible in the output. */
  readonly focused?: boolean;
}

/** What a runner's parser found, before completeness is judged. */
export interface InventoryReading {
  readonly runner: TestRunner;
  readonly tests: readonly InventoryTest[];
  readonly counts: TestCounts | undefined;
  readonly focused: boolean;
}
