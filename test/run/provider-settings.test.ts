import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeFixtureRepo, makeTestClock } from "../../src/testing/index.js";
import {
  type FakeCliSetup,
  type FakeCliTurn,
  fakeCliPath,
  setUpFakeCli,
} from "../doubles/fake-cli/fake-cli-harness.js";
import { type OpenaiServer, startOpenaiServer } from "../doubles/openai-server/openai-server.js";
import { sandboxMissing, sandboxWorks } from "../faults/support/sandbox-works.js";
import { ZETA_TASK } from "./support/fake-claude-run.js";
import { DONE, makeIssueAgent, PROJECT } from "./support/issue-repo.js";
import { type RecordedEvent, readRecordedEvents } from "./support/recorded-events.js";

/**
 * The agent CLIs' own provider settings reach them (docs/backends.md#provider-settings):
 * codex's config.toml and opencode's opencode.json name an endpoint on loopback (the
 * scripted OpenAI-compatible server) and a key variable of their own; whole runs through
 * each CLI's fake, which calls that endpoint as the real CLI does, inside the OS sandbox
 * where it runs.
 */

const KEY = "sk-local-provider-secret";
const SANDBOX = sandboxWorks ? "on" : "off";
const SANDBOX_NOTE = sandboxWorks
  ? "in the OS sandbox"
  : `without the OS sandbox (${sandboxMissing})`;

interface Setup {
  readonly repo: FixtureRepo;
  readonly fake: FakeCliSetup;
  readonly server: OpenaiServer;
  readonly home: string;
}

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.repo.cleanup();
  await setup?.fake.cleanup();
  await setup?.server.close();
  if (setup !== undefined) await rm(setup.home, { recursive: true, force: true });
  setup = undefined;
});

async function start(options: {
  readonly backend: Record<string, unknown>;
  readonly turns: readonly FakeCliTurn[];
  readonly files?: (server: OpenaiServer) => Record<string, string>;
  readonly home?: (server: OpenaiServer, home: string) => Promise<void>;
  readonly sandbox?: Record<string, unknown>;
  readonly queryTimeoutMs?: number;
}) {
  const server = await startOpenaiServer({ apiKey: KEY });
  server.script([{ text: "hello" }, { text: "hello" }, { text: "hello" }]);
  const fake = await setUpFakeCli();
  await fake.script(options.turns);
  const home = await realpath(await mkdtemp(join(tmpdir(), "closer-provider-home-")));
  await options.home?.(server, home);
  const agent = makeIssueAgent({
    runner: {
      backend: options.backend,
      env: { backend: ["FAKE_CLI_*"] },
      maxIterations: 3,
      budgets: { queryTimeoutMs: options.queryTimeoutMs ?? 60_000, validatorTimeoutMs: 20_000 },
      // The fakes keep their log beside their script.
      sandbox: { mode: SANDBOX, allowWrite: [fake.stateDir], ...options.sandbox },
    },
  });
  const repo = await makeFixtureRepo({
    files: { ...PROJECT, ...options.files?.(server) },
    agents: [agent],
  });
  setup = { repo, fake, server, home };
  const { CODEX_HOME: _codexHome, ...fakeEnv } = fake.env;
  const { CODEX_HOME: _userCodexHome, ...closerEnv } = process.env;
  return runTask({
    agent: await loadAgent("fixer", { cwd: repo.dir }),
    cwd: repo.dir,
    task: ZETA_TASK,
    clock: makeTestClock(),
    env: {
      ...closerEnv,
      ...fakeEnv,
      HOME: home,
      LOCAL_LLM_KEY: KEY,
      FAKE_CLI_LOG_ENV: "LOCAL_LLM_KEY",
    },
  });
}

const CODEX_CONFIG = (server: OpenaiServer) =>
  [
    'model_provider = "local"',
    "",
    "[model_providers.local]",
    'name = "Local model"',
    `base_url = "${server.baseURL}"`,
    'env_key = "LOCAL_LLM_KEY"',
    'wire_api = "chat"',
    "",
  ].join("\n");

describe(`an agent CLI's own provider settings, ${SANDBOX_NOTE}`, () => {
  it("codex: the env_key of config.toml's provider goes through closer's key proxy to the base_url; codex holds a placeholder", async () => {
    const outcome = await start({
      backend: { kind: "codex", command: [fakeCliPath("codex")] },
      turns: [{ callModel: { retries: 20 }, structuredOutput: DONE }],
      home: async (server, home) => {
        await mkdir(join(home, ".codex"));
        await writeFile(join(home, ".codex/config.toml"), CODEX_CONFIG(server));
      },
    });

    const log = (await setup?.fake.log()) ?? [];
    expect(log[0]?.modelCall).toMatchObject({ status: 200 });
    expect(log[0]?.env.LOCAL_LLM_KEY).toBe("closer-placeholder-LOCAL_LLM_KEY");
    // The endpoint got the real key, added by closer on the way.
    expect(setup?.server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
  });

  it("opencode: the {env:NAME} key of the project's opencode.json is passed; its baseURL's host is allowed to the backend", async () => {
    const outcome = await start({
      backend: { kind: "opencode", command: [fakeCliPath("opencode")] },
      turns: [{ callModel: { retries: 20 }, structuredOutput: DONE }],
      files: (server) => ({
        "opencode.json": JSON.stringify({
          provider: {
            local: {
              npm: "@ai-sdk/openai-compatible",
              options: { baseURL: server.baseURL, apiKey: "{env:LOCAL_LLM_KEY}" },
              models: { fake: {} },
            },
          },
        }),
      }),
    });

    const log = (await setup?.fake.log()) ?? [];
    expect(log[0]?.modelCall).toMatchObject({ status: 200, attempts: 1 });
    expect(setup?.server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const events = await readRecordedEvents<RecordedEvent>(outcome.runDir);
    expect(events.filter((event) => event.type === "sandbox-refused")).toEqual([]);
  });
});

describe(`a connection the OS sandbox refuses during a query${sandboxWorks ? "" : ` — skipped, it cannot run here: ${sandboxMissing}`}`, {
  skip: !sandboxWorks,
}, () => {
  it("stops the query of a CLI that keeps retrying the denied host: the attempt fails as a sandbox refusal naming the host and the setting", async () => {
    const denied = "llm.denied.invalid:8080";
    const outcome = await start({
      backend: { kind: "codex", command: [fakeCliPath("codex")] },
      // Retries for as long as it lives; only the query timeout (ten minutes) would end it.
      turns: [{ callModel: { url: `http://${denied}/v1` } }, { structuredOutput: DONE }],
      queryTimeoutMs: 600_000,
    });

    const events = await readRecordedEvents<RecordedEvent>(outcome.runDir);
    const first = events.filter((event) => event.iteration === 1);
    const ended = first.find((event) => event.type === "backend-end");
    expect(ended?.error).toMatchObject({ kind: "aborted" });
    const stopped = String((ended?.error as { message?: string } | undefined)?.message);
    expect(stopped).toContain(denied);
    expect(stopped).toContain("runner.sandbox.allowedDomains");
    const refused = first.find((event) => event.type === "sandbox-refused");
    expect(refused?.refusals).toEqual([expect.stringContaining(`deny network-outbound ${denied}`)]);
    expect(first).toContainEqual(
      expect.objectContaining({ type: "guard", guard: "sandbox-refused", valid: false }),
    );
    // The failed attempt is retried; the next query answers and the run completes.
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
  }, 60_000);
});
