import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assertAgentValid,
  CloserError,
  formatProblem,
  lintAgent,
  lintAgentFolder,
  loadAgent,
  type ResolvedAgent,
} from "../../src/index.js";

const BROKEN = fileURLToPath(new URL("../fixtures/broken/", import.meta.url));
const WARNING = fileURLToPath(new URL("../fixtures/validate-warning/", import.meta.url));

/** The fixture's agent, or undefined when the loader itself rejects it. */
async function loadOrUndefined(cwd: string): Promise<ResolvedAgent | undefined> {
  return loadAgent("iterator", { cwd }).catch(() => undefined);
}

describe("lintAgent on a loaded agent", () => {
  it("finds what closer validate finds, for every broken definition that loads", async () => {
    let loaded = 0;
    for (const name of await readdir(BROKEN)) {
      const cwd = join(BROKEN, name);
      const agent = await loadOrUndefined(cwd);
      if (agent === undefined) continue;
      loaded += 1;
      const report = await lintAgent(agent);
      expect(report, name).toEqual(await lintAgentFolder("iterator", cwd));
      expect(report.valid, name).toBe(false);
    }
    expect(loaded).toBeGreaterThan(10);
  });

  it("passes with warnings, and counts what it checked", async () => {
    const agent = await loadAgent("iterator", { cwd: join(WARNING, "builtin-retry") });
    const report = await lintAgent(agent);
    expect(report.valid).toBe(true);
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.problems.every((problem) => problem.severity === "warning")).toBe(true);
    expect(report.counts?.steps).toBeGreaterThan(0);
  });

  describe("on a copy of a fixture", () => {
    let cwd: string;
    beforeEach(async () => {
      cwd = await mkdtemp(join(tmpdir(), "closer-check-"));
      await cp(join(BROKEN, "next-missing"), cwd, { recursive: true });
    });
    afterEach(async () => {
      await rm(cwd, { recursive: true, force: true });
    });

    it("checks the agent it is given, without reading the definition files again", async () => {
      const agent = await loadAgent("iterator", { cwd });
      const before = await lintAgent(agent);
      await rm(agent.files.agentJson);
      await rm(agent.files.registry);
      expect(await lintAgent(agent)).toEqual(before);
      expect((await lintAgentFolder("iterator", cwd)).counts).toBeUndefined();
    });

    it("shows paths relative to the project folder that holds .agent/", async () => {
      const report = await lintAgent(await loadAgent("iterator", { cwd }));
      expect(report.problems.map(formatProblem)).toEqual([
        expect.stringMatching(
          /^\.agent\/iterator\/steps_registry\.json: steps\["initial\.issue"\]\.next: /,
        ),
      ]);
    });
  });
});

describe("assertAgentValid", () => {
  it("throws a config_error listing every error, before anything runs", async () => {
    const agent = await loadAgent("iterator", { cwd: join(BROKEN, "several-problems") });
    const error = await assertAgentValid(agent).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CloserError);
    const closerError = error as CloserError;
    expect(closerError.code).toBe("config_error");
    expect(closerError.message).toContain(
      'the agent "iterator" has 3 problem(s), so nothing was run',
    );
    expect(closerError.message).toContain('steps["initial.issue"].next');
    expect(closerError.message).toContain("{{issueUrl}}");
    expect(closerError.fields.fix).toBe(
      "fix what `closer validate iterator` reports, then run again",
    );
  });

  it("lets an agent with warnings only through", async () => {
    const agent = await loadAgent("iterator", { cwd: join(WARNING, "builtin-retry") });
    await expect(assertAgentValid(agent)).resolves.toBeUndefined();
  });
});
