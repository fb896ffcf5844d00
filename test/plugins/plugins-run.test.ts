import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CheckContext,
  HEARD_ONLY_EVENTS,
  type Hook,
  type HookName,
  type HookView,
  type LogEntry,
  type Plugin,
  type RunEvent,
  readRunState,
} from "../../src/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { DECLARE_ONLY, FIX_AND_DECLARE, makePluginRepo, runWithPlugins, TASK } from "./support.js";

const PASSING_TAP =
  "TAP version 13\nok 1 - adds two numbers\nok 2 - adds zero\n1..2\n# tests 2\n# pass 2\n# fail 0\n";
const FAILING_TAP =
  "TAP version 13\nnot ok 1 - adds two numbers\nok 2 - adds zero\n1..2\n# tests 2\n# pass 1\n# fail 1\n";

/** A mock of the tests: it reads the tree instead of running them, and says which test fails. */
function mockChecks(seen: CheckContext[]): Plugin {
  return {
    name: "mock-checks",
    ports: {
      async validatorRunner(name, context, next) {
        if (name !== "tests-pass") return next(name, context);
        seen.push(context);
        const source = await readFile(join(context.cwd, "src/add.js"), "utf8");
        const valid = source.includes("left + right");
        return {
          validator: name,
          valid,
          ...(valid ? {} : { pattern: "test-failed" }),
          params: valid
            ? {}
            : { failedTests: [{ name: "mock: adds two numbers" }], errorOutput: "" },
          durationMs: 0,
          // Like a test runner, it shows the tests it ran: the integrity guards read them.
          stdout: valid ? PASSING_TAP : FAILING_TAP,
        };
      },
    },
  };
}

/** Step prompts of its own; the retry prompts are closer's templates, with a line added. */
const mockPrompts: Plugin = {
  name: "mock-prompts",
  ports: {
    async promptResolver(request, next) {
      if (request.retry !== undefined) return next(request);
      const task = request.variables.task as { title: string };
      const { c2, c3 } = request.words;
      return { text: `MOCK STEP ${c2}/${c3}: ${task.title}`, templatePath: "plugin:mock-prompts" };
    },
    // closer's retry prompt, with a line of its own on top.
    async retryPromptBuilder(request, next) {
      const retry = await next(request);
      return { ...retry, text: `Attempt ${request.attempt} of the fix.\n${retry.text}` };
    },
  },
};

describe("plugins through the library's run (docs/plugins.md)", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  async function setUp() {
    const setup = await makePluginRepo();
    cleanup = setup.repo.cleanup;
    return setup;
  }

  it("runs the whole loop with an injected mock validator and prompt resolver", async () => {
    const setup = await setUp();
    const seen: CheckContext[] = [];
    const backend = makeScriptedBackend([DECLARE_ONLY, FIX_AND_DECLARE]);
    const { result, of } = await runWithPlugins(setup, backend, [mockChecks(seen), mockPrompts]);

    expect(result).toMatchObject({ status: "completed", success: true, iterations: 2 });
    expect(backend.calls[0]?.prompt).toContain(`MOCK STEP initial/task: ${TASK.title}`);
    // The mock's finding reaches the model through closer's own retry template.
    expect(backend.calls[1]?.prompt).toMatch(/^Attempt 1 of the fix\.\n## Tests are failing/);
    expect(backend.calls[1]?.prompt).toContain("`mock: adds two numbers`");
    expect(of("prompt").map((event) => [event.kind, event.templatePath])).toEqual([
      ["step", "plugin:mock-prompts"],
      ["retry", "prompts/steps/retry/task/f_failed_test-failed.md"],
    ]);
    const checks = of("validator-end").map((event) => [event.validator, event.valid]);
    expect(checks).toEqual([
      ["git-clean", true],
      ["tests-pass", false],
      ["git-clean", true],
      ["tests-pass", true],
    ]);
    // The baseline's check and the second declaration's: the first declaration's tree was the
    // baseline's, whose verdict was reused (docs/completion.md#cached-verdicts).
    // Both in the clean room (docs/integrity.md#clean-room), a folder named as the project's.
    const name = basename(setup.repo.dir);
    expect(seen.map((context) => basename(context.cwd))).toEqual([name, name]);
    expect(seen.map((context) => context.cwd)).not.toContain(setup.repo.dir);

    // A run whose checks a plugin answered says so: in its record and in its result.
    const replaced =
      "plugin \"mock-checks\" replaces the validator runner: the checks' verdicts are its own, not those of the registry's validators";
    expect(result.warnings).toContain(replaced);
    expect((await readRunState(result.runDir)).warnings).toContain(replaced);
    expect(of("plugins")[0]?.plugins).toEqual([
      { name: "mock-checks", required: false, hooks: [], ports: ["validatorRunner"] },
      {
        name: "mock-prompts",
        required: false,
        hooks: [],
        ports: ["promptResolver", "retryPromptBuilder"],
      },
    ]);
  });

  it("calls the hooks in the loop's order, awaiting each plugin in turn, with what each seam knows", async () => {
    const setup = await setUp();
    const calls: string[] = [];
    const views: Record<string, unknown[]> = {};
    const recorder = (label: string, delayMs = 0): Plugin => {
      const hook =
        <H extends HookName>(name: H, line: (view: HookView<H>) => string): Hook<HookView<H>> =>
        async (view) => {
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          calls.push(`${label} ${name} ${line(view)}`);
          if (label === "quick") views[name] = [...(views[name] ?? []), view];
        };
      return {
        name: label,
        hooks: {
          beforeQuery: hook(
            "beforeQuery",
            (v) => `${v.iteration} ${v.kind}${v.pattern ? ` ${v.pattern}` : ""}`,
          ),
          afterResponse: hook("afterResponse", (v) => `${v.iteration}`),
          beforeChecks: hook("beforeChecks", (v) => `${v.iteration} ${v.validators.join(",")}`),
          afterChecks: hook(
            "afterChecks",
            (v) => `${v.iteration} ${v.complete ? "complete" : v.failure?.pattern}`,
          ),
          onRetry: hook("onRetry", (v) => `${v.pattern} ${v.attempt}/${v.maxAttempts}`),
          onEnd: hook("onEnd", (v) => v.result.status),
        },
      };
    };
    const backend = makeScriptedBackend([DECLARE_ONLY, FIX_AND_DECLARE]);
    // The first plugin takes its time: the second is still called after it, never beside it.
    const { result } = await runWithPlugins(setup, backend, [
      recorder("slow", 5),
      recorder("quick"),
    ]);

    expect(result.status).toBe("completed");
    const expected = [
      "beforeQuery 1 step",
      "afterResponse 1",
      "beforeChecks 1 git-clean,tests-pass",
      "afterChecks 1 test-failed",
      "onRetry test-failed 1/3",
      "beforeQuery 2 retry test-failed",
      "afterResponse 2",
      "beforeChecks 2 git-clean,tests-pass",
      "afterChecks 2 complete",
      "onEnd completed",
    ];
    expect(calls).toEqual(expected.flatMap((line) => [`slow ${line}`, `quick ${line}`]));

    const [firstQuery, secondQuery] = views.beforeQuery as { prompt: string }[];
    expect(firstQuery?.prompt).toBe(backend.calls[0]?.prompt);
    expect(secondQuery?.prompt).toBe(backend.calls[1]?.prompt);
    const [refuted] = views.afterChecks as {
      outcomes: { validator: string; valid: boolean }[];
      declaration: { summary: string };
      failure: { name: string };
    }[];
    expect(refuted?.outcomes.map((outcome) => [outcome.validator, outcome.valid])).toEqual([
      ["git-clean", true],
      ["tests-pass", false],
    ]);
    expect(refuted?.declaration.summary).toBe("fixed add");
    expect(refuted?.failure.name).toBe("tests-pass");
    const [retry] = views.onRetry as { prompt: string }[];
    expect(retry?.prompt).toBe(backend.calls[1]?.prompt);
    const [end] = views.onEnd as { result: unknown }[];
    expect(end?.result).toEqual(result);
    expect(Object.isFrozen(end?.result)).toBe(true);
  });

  it("hands every event to a record sink, in order, and notable ones to a logger", async () => {
    const setup = await setUp();
    const sunk: RunEvent[] = [];
    const logged: LogEntry[] = [];
    const observer: Plugin = {
      name: "observer",
      ports: {
        recordSink: async (event) => {
          await Promise.resolve();
          sunk.push(event);
        },
        logger: (entry) => {
          logged.push(entry);
        },
      },
    };
    const backend = makeScriptedBackend([DECLARE_ONLY, FIX_AND_DECLARE]);
    const { result, events } = await runWithPlugins(setup, backend, [observer]);

    expect(result.status).toBe("completed");
    // A record sink gets what the record keeps: the listener also hears what is under way.
    expect(sunk).toEqual(events.filter((event) => !HEARD_ONLY_EVENTS.has(event.type)));
    expect(events.some((event) => event.type === "baseline-start")).toBe(true);
    expect(sunk.at(-1)?.type).toBe("run-end");
    const recorded = (await readFile(join(result.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n");
    expect(sunk.map((event) => event.type)).toEqual(
      recorded.map((line) => (JSON.parse(line) as RunEvent).type),
    );
    const lines = logged.map((entry) => `${entry.level} ${entry.message}`);
    expect(lines).toContain("info iteration 1 · step initial.task");
    expect(lines).toContain("warn check tests-pass failed (test-failed)");
    expect(lines).toContain("info retry with test-failed (attempt 1/3)");
    expect(lines.at(-1)).toMatch(/^info run ended completed after 2 iteration\(s\): /);
  });
});
