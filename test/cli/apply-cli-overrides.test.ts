import { afterEach, describe, expect, it } from "vitest";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { loadAgent } from "../../src/definition/load-agent.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { makeIssueAgent } from "../run/support/issue-repo.js";

describe("applyCliOverrides", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  async function load(runner: Record<string, unknown>) {
    repo = await makeFixtureRepo({ agents: [makeIssueAgent({ runner })] });
    return loadAgent("fixer", { cwd: repo.dir });
  }

  it("replaces what the flags give and returns a new frozen agent", async () => {
    const agent = await load({
      maxIterations: 9,
      backend: { kind: "scripted", model: "file-model" },
    });
    const changed = applyCliOverrides(agent, {
      maxIterations: 3,
      backend: "command",
      model: "flag-model",
      runsDir: "/tmp/runs",
      verbose: true,
      worktree: false,
    });
    expect(changed.runner.maxIterations).toBe(3);
    expect(changed.runner.backend.kind).toBe("command");
    expect(changed.runner.backend.model).toBe("flag-model");
    expect(changed.runner.logging).toMatchObject({ runsDir: "/tmp/runs", verbose: true });
    expect(changed.runner.worktree.enabled).toBe(false);
    expect(Object.isFrozen(changed.runner.backend)).toBe(true);
    expect(agent.runner.maxIterations).toBe(9);
    expect(agent.runner.backend.model).toBe("file-model");
  });

  it("never overwrites a file value with an absent flag", async () => {
    const agent = await load({
      maxIterations: 9,
      backend: { kind: "scripted", model: "file-model" },
      logging: { runsDir: "runs-here", verbose: true },
      worktree: { enabled: true },
    });
    const changed = applyCliOverrides(agent, { worktree: true, verbose: false });
    expect(changed.runner).toEqual(agent.runner);
  });

  it("keeps the flags that changed something, so the agent loaded again from a snapshot gets them", async () => {
    const agent = await load({ maxIterations: 9 });
    const once = applyCliOverrides(agent, { maxIterations: 3, worktree: true, verbose: false });
    expect(once.cliOverrides).toEqual({ maxIterations: 3 });
    const twice = applyCliOverrides(once, { model: "flag-model", worktree: false });
    expect(twice.cliOverrides).toEqual({ maxIterations: 3, model: "flag-model", worktree: false });

    const reloaded = applyCliOverrides(await loadAgent("fixer", { cwd: repo?.dir ?? "" }), {
      ...twice.cliOverrides,
    });
    expect(reloaded.runner).toEqual(twice.runner);
  });

  it("rejects an unknown backend and a bad iteration count with usage errors", async () => {
    const agent = await load({});
    expect(() => applyCliOverrides(agent, { backend: "gpt" })).toThrow(
      /--backend "gpt" is not a backend/,
    );
    expect(() => applyCliOverrides(agent, { maxIterations: 0 })).toThrow(/--max-iterations/);
  });
});
