import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
import { describeDifference } from "../../src/redecide/compare-trails.js";
import { redecideRun } from "../../src/redecide/redecide-run.js";
import { cli } from "../cli/support/cli-repo.js";
import { CORPUS_DIR, RECORDED_RUNS } from "../support/recorded-runs.js";

const CORPUS = resolve(CORPUS_DIR);

/** A copy of a corpus run, to edit. */
async function copyOf(name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "closer-replay-"));
  const runDir = join(folder, name);
  await cp(join(CORPUS, name), runDir, { recursive: true });
  return runDir;
}

async function editJson(file: string, edit: (value: Record<string, unknown>) => void) {
  const value = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  edit(value);
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

type Json = Record<string, Record<string, Record<string, unknown>>>;

describe("docs/replay.md#corpus: every recorded run replays with the same decisions", () => {
  it("the corpus holds every recorded run the generator makes", async () => {
    const names = (await readdir(CORPUS)).sort();
    expect(names).toEqual(RECORDED_RUNS.map((recipe) => recipe.name).sort());
  });

  it.each(RECORDED_RUNS.map((recipe) => [recipe.name, recipe.status] as const))(
    "%s (%s) replays identical",
    async (name, status) => {
      const result = await redecideRun({ runDir: join(CORPUS, name) });

      expect(result.differences.map(describeDifference)).toEqual([]);
      expect(result.identical).toBe(true);
      expect(result.replayed.at(-1)).toEqual({
        iteration: "end",
        what: "terminal state",
        value: status,
      });
      expect(result.replayed.filter((entry) => entry.what === "decision").length).toBeGreaterThan(
        0,
      );
    },
  );
});

describe("docs/replay.md#what-is-compared: a changed definition shows where it decides otherwise", () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0))
      await rm(resolve(dir, ".."), { recursive: true, force: true });
  });

  it("another failure pattern for a check: another retry pattern and template", async () => {
    const runDir = await copyOf("retries-exhausted");
    made.push(runDir);
    const definition = join(runDir, "edited");
    await cp(join(runDir, "definition"), definition, { recursive: true });
    await editJson(join(definition, "steps_registry.json"), (registry) => {
      const validators = registry.validators as Json;
      (validators["tests-pass"] as Record<string, unknown>).failurePattern = "git-dirty";
    });

    const result = await redecideRun({ runDir, definitionDir: definition });

    expect(result.identical).toBe(false);
    const lines = result.differences.map(describeDifference);
    expect(lines).toContain("iteration 1: retry pattern test-failed → git-dirty");
    expect(lines).toContain(
      "iteration 1: retry template prompts/steps/retry/task/f_failed_test-failed.md → prompts/steps/retry/task/f_failed_git-dirty.md",
    );
    expect(lines).toContain(
      "iteration 1: validator tests-pass failed (test-failed) → failed (git-dirty)",
    );
    expect(lines).not.toContainEqual(expect.stringContaining("terminal state"));
  });

  it("fewer attempts: the run ends earlier, and the CLI exits 1 with the differences", async () => {
    const runDir = await copyOf("retries-exhausted");
    made.push(runDir);
    const definition = join(runDir, "edited");
    await cp(join(runDir, "definition"), definition, { recursive: true });
    await editJson(join(definition, "steps_registry.json"), (registry) => {
      const steps = registry.completionSteps as Json;
      (steps["complete.task"] as Record<string, unknown>).onFailure = {
        action: "retry",
        maxAttempts: 2,
      };
    });

    const replayed = await cli("replay", runDir, "--definition", definition);

    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toContain("iteration 1: retry attempt 1/3 → 1/2");
    expect(replayed.stdout).toContain("iteration 3: decision complete → (none)");
    const json = await cli("replay", runDir, "--definition", definition, "--json");
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as { identical: boolean; differences: unknown[] };
    expect(parsed.identical).toBe(false);
    expect(parsed.differences).toContainEqual({
      iteration: 3,
      what: "decision",
      recorded: "complete",
    });
    expect(parsed.differences).not.toContainEqual(
      expect.objectContaining({ what: "terminal state" }),
    );
  });

  it("a check outcome the record lacks stops the replay there, as a difference", async () => {
    const runDir = await copyOf("completed-after-retries");
    made.push(runDir);
    const eventsFile = join(runDir, "events.jsonl");
    const lines = (await readFile(eventsFile, "utf8")).trim().split("\n");
    const kept = lines.filter((line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      return !(
        event.type === "validator-end" &&
        event.iteration === 3 &&
        event.validator === "tests-pass"
      );
    });
    expect(kept).toHaveLength(lines.length - 1);
    await writeFile(eventsFile, `${kept.join("\n")}\n`);

    const result = await redecideRun({ runDir });

    expect(result.identical).toBe(false);
    expect(result.differences.map(describeDifference)).toContainEqual(
      expect.stringMatching(/^iteration 3: replay stopped.*validator tests-pass/),
    );
  });
});

describe("docs/replay.md#replay: the recorded sandbox's refusals", () => {
  it("a refusal recorded after a query fails that iteration in the replay", async () => {
    const runDir = await copyOf("max-iterations");
    try {
      const eventsFile = join(runDir, "events.jsonl");
      const events = (await readFile(eventsFile, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const withRefusal = events.flatMap((event) => {
        if (event.type === "run-start") return [event, { type: "sandbox", on: true }];
        if (event.type === "backend-end" && event.iteration === 1) {
          const refused = { type: "sandbox-refused", iteration: 1, kind: "backend" };
          return [event, { ...refused, refusals: ["deny openat /home/me/.bashrc"] }];
        }
        return [event];
      });
      await writeFile(
        eventsFile,
        `${withRefusal.map((event) => JSON.stringify(event)).join("\n")}\n`,
      );

      const result = await redecideRun({ runDir });

      expect(result.differences.map(describeDifference)).toContain(
        "iteration 1: guard sandbox-refused (none) → failed",
      );
    } finally {
      await rm(resolve(runDir, ".."), { recursive: true, force: true });
    }
  });
});

describe("closer replay on the command line", () => {
  it("exits 0 for a run that replays identical, found by id in --runs-dir", async () => {
    const result = await cli("replay", "closure-review", "--runs-dir", CORPUS);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^replay of closure-review: the same \d+ decisions as recorded/);
  });

  it("prints {identical, differences} with --json", async () => {
    const result = await cli("replay", "blocked", "--runs-dir", CORPUS, "--json");

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ identical: true, differences: [] });
  });

  it("exits 2 naming the runs folder, and how to list it, for a run that is not there", async () => {
    const result = await cli("replay", "20300101-000000-nothere", "--runs-dir", CORPUS);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no run "20300101-000000-nothere" in ${CORPUS}`);
    expect(result.stderr).toContain("closer runs");
  });

  it("exits 2 naming the file for a run whose task.json is missing", async () => {
    const runDir = await copyOf("aborted");
    try {
      await rm(join(runDir, "task.json"));
      const result = await cli("replay", runDir);

      expect(result.code).toBe(2);
      expect(result.stderr).toContain(join(runDir, "task.json"));
      await expect(redecideRun({ runDir })).rejects.toBeInstanceOf(CloserError);
    } finally {
      await rm(resolve(runDir, ".."), { recursive: true, force: true });
    }
  });
});
