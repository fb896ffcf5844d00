import { delimiter } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BOUNDARY_MESSAGE } from "../../src/backends/boundary.js";
import { runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import {
  type FakeCliName,
  type FakeCliSetup,
  type FakeCliTurn,
  fakeCliPath,
  setUpFakeCli,
} from "../doubles/fake-cli/fake-cli-harness.js";
import { fixerRunOptions } from "./support/fake-claude-run.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";
import { readRecordedEvents } from "./support/recorded-events.js";

/**
 * Whole runs through each agent CLI's fake: the model cannot perform a GitHub
 * side effect (no token, a refusing `gh` first on its PATH, the attempt
 * recorded), and tokens reported without a price are priced, so a cost
 * budget holds.
 */

const BACKENDS: Readonly<Record<string, { cli: FakeCliName; config: Record<string, unknown> }>> = {
  "claude-cli": {
    cli: "claude",
    config: { kind: "claude-cli", permissionMode: "bypassPermissions" },
  },
  codex: { cli: "codex", config: { kind: "codex", command: [fakeCliPath("codex")] } },
  opencode: { cli: "opencode", config: { kind: "opencode", command: [fakeCliPath("opencode")] } },
  command: {
    cli: "agent-command",
    config: { kind: "command", command: [fakeCliPath("agent-command")] },
  },
};

describe("agent CLIs at the GitHub boundary and the cost budget", () => {
  let repo: FixtureRepo | undefined;
  let fake: FakeCliSetup | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    await fake?.cleanup();
    repo = undefined;
    fake = undefined;
  });

  async function start(
    backend: Record<string, unknown>,
    turns: readonly FakeCliTurn[],
    budgets: Record<string, unknown> = {},
  ) {
    fake = await setUpFakeCli();
    const agent = makeIssueAgent({
      runner: {
        backend,
        // The fake CLIs find their scripts through these (docs/backends.md#environment).
        env: { backend: ["FAKE_CLI_*"] },
        maxIterations: 4,
        budgets: { queryTimeoutMs: 20_000, validatorTimeoutMs: 20_000, ...budgets },
        // A command backend has no state folder of its own: its files are named to the sandbox.
        ...(backend.kind === "command" ? { sandbox: { allowWrite: [fake.stateDir] } } : {}),
      },
    });
    repo = await makeFixtureRepo({ files: PROJECT, agents: [agent] });
    await fake.script(turns);
    // The CLI processes inherit closer's environment: that is where the fakes find their script.
    const env = {
      ...fake.env,
      FAKE_CLI_LOG_ENV: "GITHUB_TOKEN,GH_TOKEN,GH_ENTERPRISE_TOKEN,PATH",
      GITHUB_TOKEN: "ghp_closersOwnToken",
      GH_TOKEN: "gho_usersToken",
      GH_ENTERPRISE_TOKEN: "ghe_token",
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const { options } = await fixerRunOptions(repo, { CLOSER_CLAUDE_PATH: fakeCliPath("claude") });
    return { fake, options };
  }

  it.each(Object.keys(BACKENDS))(
    "%s: `gh issue close 7` fails with the boundary message, is recorded, and the model holds no token",
    async (kind) => {
      const backend = BACKENDS[kind];
      if (backend === undefined) throw new Error(`no fake for ${kind}`);
      const { fake, options } = await start(backend.config, [
        { commands: ["gh issue close 7"], structuredOutput: DONE },
      ]);
      const outcome = await runTask(options);

      expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
      const [call] = await fake.log();
      expect(call?.commands).toEqual([
        {
          command: "gh issue close 7",
          exitCode: 1,
          stderr: expect.stringContaining(BOUNDARY_MESSAGE),
        },
      ]);
      expect(call?.env).not.toHaveProperty("GITHUB_TOKEN");
      expect(call?.env).not.toHaveProperty("GH_TOKEN");
      expect(call?.env).not.toHaveProperty("GH_ENTERPRISE_TOKEN");
      expect(call?.env.PATH?.split(delimiter)[0]).toMatch(/closer-gh-/);
      const attempts = (await readRecordedEvents(outcome.runDir)).filter(
        (event) => event.type === "boundary-attempt",
      );
      expect(attempts).toEqual([
        expect.objectContaining({ iteration: 1, command: "gh issue close 7", backend: kind }),
      ]);
    },
  );

  it("codex: tokens of a known model are priced, and maxCostUsd ends the run", async () => {
    const working: FakeCliTurn = {
      text: "still working",
      usage: { inputTokens: 400_000, outputTokens: 50_000 },
    };
    const { options } = await start(
      { ...BACKENDS.codex?.config, model: "gpt-5" },
      [working, working, working, working],
      { maxCostUsd: 0.5 },
    );
    const outcome = await runTask(options);

    // 400k input at $1.25/M + 50k output at $10/M = $1.00 per query.
    expect(outcome).toMatchObject({ success: false, status: "budget_exhausted", iterations: 1 });
    const ends = (await readRecordedEvents(outcome.runDir)).filter(
      (event) => event.type === "backend-end",
    );
    expect(ends[0]?.costUsd).toBeCloseTo(1);
  });

  it("codex with a model closer knows no price for: the run warns that maxCostUsd cannot be enforced", async () => {
    const { options } = await start(
      { ...BACKENDS.codex?.config, model: "my-local-model" },
      [{ structuredOutput: DONE, usage: { inputTokens: 10, outputTokens: 10 } }],
      { maxCostUsd: 0.5 },
    );
    const outcome = await runTask(options);

    expect(outcome).toMatchObject({ status: "completed" });
    const warnings = (await readRecordedEvents(outcome.runDir)).filter(
      (event) => event.type === "warning",
    );
    expect(warnings.map((event) => event.message)).toContainEqual(
      expect.stringContaining("maxCostUsd cannot be enforced for model my-local-model"),
    );
  });
});
