/**
 * The claude-sdk backend wired to the fake Claude Code executable through the
 * real SDK: a temp working tree, an environment that points the fake at its
 * script, and the contract-suite harness.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ClaudeSdkBackendConfig,
  type ClaudeSdkBackendOptions,
  makeClaudeSdkBackend,
} from "../../../src/backends/claude-sdk/claude-sdk.js";
import type { Backend, BackendRequest } from "../../../src/ports/backend.js";
import type { BackendContractHarness, ContractTurn } from "../../backend-contract.js";
import { type FakeClaude, type FakeClaudeTurn, makeFakeClaude } from "./make-fake-claude.js";

export interface ClaudeSdkTestSetup {
  readonly fake: FakeClaude;
  /** The working tree of the queries (a temp folder). */
  readonly cwd: string;
  readonly backend: Backend;
  /** The environment the backend was given as closer's own. */
  readonly env: Readonly<Record<string, string | undefined>>;
  request(overrides?: Partial<BackendRequest>): BackendRequest;
  cleanup(): Promise<void>;
}

export interface ClaudeSdkTestOptions {
  readonly config?: ClaudeSdkBackendConfig;
  readonly backendOptions?: ClaudeSdkBackendOptions;
  /** Added to closer's environment (after the fake's variables and CLOSER_CLAUDE_PATH). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly recordEnv?: readonly string[];
}

export async function setUpClaudeSdk(
  options: ClaudeSdkTestOptions = {},
): Promise<ClaudeSdkTestSetup> {
  const fake = await makeFakeClaude(options.recordEnv ? { recordEnv: options.recordEnv } : {});
  const cwd = await mkdtemp(join(tmpdir(), "closer-claude-sdk-"));
  const env = {
    ...process.env,
    CLOSER_CLAUDE_PATH: fake.executablePath,
    ...fake.env,
    ...options.env,
  };
  const backend = makeClaudeSdkBackend(options.config ?? {}, {
    env,
    killGraceMs: 500,
    findNativeExecutable: () => undefined,
    ...options.backendOptions,
  });
  return {
    fake,
    cwd,
    backend,
    env,
    request: (overrides = {}) => ({
      prompt: "Do the work.",
      cwd,
      allowedTools: [],
      disallowedTools: [],
      permissionMode: "bypassPermissions",
      env: {},
      timeoutMs: 30_000,
      signal: new AbortController().signal,
      ...overrides,
    }),
    async cleanup() {
      await fake.cleanup();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

export function toFakeClaudeTurn(turn: ContractTurn): FakeClaudeTurn {
  switch (turn.kind) {
    case "structured":
      return { structuredOutput: turn.output };
    case "text":
      return { text: turn.text };
    case "rate_limit":
      return { outcome: "rate_limit" };
    case "hang":
      return { outcome: "hang" };
  }
}

export async function makeClaudeSdkContractHarness(): Promise<BackendContractHarness> {
  const setup = await setUpClaudeSdk();
  return {
    backend: setup.backend,
    script: (turns) => setup.fake.script(turns.map(toFakeClaudeTurn)),
    request: setup.request,
    async observed() {
      const invocations = await setup.fake.invocations();
      return invocations.map((invocation) => ({
        ...(invocation.options.resume === undefined
          ? {}
          : { resumedSessionId: invocation.options.resume }),
        pids: [invocation.pid, ...invocation.childPids],
      }));
    },
    cleanup: setup.cleanup,
  };
}
