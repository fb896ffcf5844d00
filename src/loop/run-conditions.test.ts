import { describe, expect, it } from "vitest";
import type { ValidatorOutcome } from "../ports/validator.js";
import { checkCompletion } from "./check-completion.js";
import { type ConditionRunner, runConditions } from "./run-conditions.js";

function outcome(validator: string, fields: Partial<ValidatorOutcome> = {}): ValidatorOutcome {
  return { validator, valid: true, params: {}, durationMs: 1, ...fields };
}

/**
 * Validators whose outcomes the test hands out, in whatever order it likes; what the
 * scheduler reports is logged.
 */
function heldValidators(table: Record<string, Partial<ValidatorOutcome>> = {}) {
  const log: string[] = [];
  const waiting = new Map<string, () => void>();
  let running = 0;
  let mostAtOnce = 0;
  const runner: ConditionRunner = {
    run: ({ validator: name }) =>
      new Promise((resolve) => {
        log.push(`run ${name}`);
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        waiting.set(name, () => {
          running--;
          resolve(outcome(name, table[name]));
        });
      }),
    started: (name) => log.push(`start ${name}`),
    ended: (found) => log.push(`end ${found.validator}`),
  };
  /** Lets the named validators finish, one after another, in that order. */
  const finish = async (...names: string[]) => {
    for (const name of names) {
      await until(() => waiting.has(name));
      waiting.get(name)?.();
      waiting.delete(name);
      await flush();
    }
  };
  return { log, runner, finish, mostAtOnce: () => mostAtOnce, running: () => running };
}

async function flush(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100 && !condition(); turn++) await flush();
  if (!condition()) throw new Error("the scheduler never got there");
}

const NAMES = ["a", "b", "c"].map((validator) => ({ validator }));

describe("docs/completion.md#concurrency runConditions", () => {
  it("runs every validator at once by default and reports them in condition order", async () => {
    const held = heldValidators();
    const done = runConditions(NAMES, held.runner);
    await until(() => held.running() === 3);
    await held.finish("c", "b", "a");
    const outcomes = await done;
    expect(outcomes.map((found) => found.validator)).toEqual(["a", "b", "c"]);
    expect(held.mostAtOnce()).toBe(3);
    expect(held.log.filter((line) => !line.startsWith("run"))).toEqual([
      "start a",
      "start b",
      "start c",
      "end a",
      "end b",
      "end c",
    ]);
  });

  it("with concurrency 1 runs one after another, as the sequential order", async () => {
    const held = heldValidators();
    const done = runConditions(NAMES, held.runner, { concurrency: 1 });
    await held.finish("a", "b", "c");
    await done;
    expect(held.mostAtOnce()).toBe(1);
    expect(held.log.filter((line) => !line.startsWith("run"))).toEqual([
      "start a",
      "end a",
      "start b",
      "end b",
      "start c",
      "end c",
    ]);
  });

  it.each([
    ["a first", ["a", "b", "c"]],
    ["b first", ["b", "a", "c"]],
  ])("with concurrency 2 reports the same sequence whichever ends first (%s)", async (_, order) => {
    const held = heldValidators();
    const done = runConditions(NAMES, held.runner, { concurrency: 2 });
    await held.finish(...order);
    await done;
    expect(held.mostAtOnce()).toBe(2);
    expect(held.log.filter((line) => !line.startsWith("run"))).toEqual([
      "start a",
      "start b",
      "end a",
      "start c",
      "end b",
      "end c",
    ]);
  });

  it("a reused outcome runs nothing and has no start", async () => {
    const held = heldValidators();
    const runner = {
      ...held.runner,
      reuse: ({ validator }: { validator: string }) =>
        validator === "b" ? outcome("b") : undefined,
    };
    const done = runConditions(NAMES, runner);
    await held.finish("c", "a");
    await done;
    expect(held.log).toEqual(["start a", "run a", "start c", "run c", "end a", "end b", "end c"]);
  });

  it("an outcome that ends the phase starts no later validator", async () => {
    const held = heldValidators({ a: { valid: false, configError: "exit 127" } });
    const done = runConditions(NAMES, held.runner, {
      concurrency: 1,
      endsPhase: (found) => found.configError !== undefined,
    });
    await held.finish("a");
    expect((await done).map((found) => found.validator)).toEqual(["a"]);
    expect(held.log).toEqual(["start a", "run a", "end a"]);
  });

  it("starts nothing once the run stopped", async () => {
    const held = heldValidators();
    const outcomes = await runConditions(NAMES, { ...held.runner, stopped: () => true });
    expect(outcomes).toEqual([]);
    expect(held.log).toEqual([]);
  });
});

describe("docs/completion.md#concurrency checkCompletion", () => {
  it("the first failing condition in order decides, though a later one failed first", async () => {
    const held = heldValidators({
      a: { valid: false, pattern: "slow-failure" },
      c: { valid: false, pattern: "fast-failure" },
    });
    const done = checkCompletion(NAMES, held.runner);
    await held.finish("c", "b", "a");
    const result = await done;
    if (result.valid) throw new Error("expected a failure");
    expect(result.pattern).toBe("slow-failure");
    expect(result.validator).toBe("a");
    expect(result.failures.map((found) => found.validator)).toEqual(["a", "c"]);
  });
});
