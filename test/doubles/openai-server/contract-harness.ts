/**
 * The contract harness (test/backend-contract.ts) of the openai-compatible
 * backend: the real backend, made by makeBackend, against the fake endpoint.
 * A `hang` turn is a bash tool call that starts a child and waits for it, so
 * the timeout and the abort must end a process group of closer's own.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeBackend } from "../../../src/backends/make-backend.js";
import type { Backend, BackendRequest, BackendResponse } from "../../../src/ports/backend.js";
import type { BackendConfig } from "../../../src/ports/runner-config.js";
import type {
  BackendContractHarness,
  ContractTurn,
  ObservedQuery,
} from "../../backend-contract.js";
import {
  type ChatRequest,
  type OpenaiServer,
  type ScriptStep,
  startOpenaiServer,
} from "./openai-server.js";

export const FAKE_MODEL = "fake-model";

/** A whole BackendConfig of kind openai-compatible for the fake at `baseURL`. */
export function openaiBackendConfig(
  baseURL: string,
  extra: Partial<BackendConfig> = {},
): BackendConfig {
  return {
    kind: "openai-compatible",
    baseURL,
    model: FAKE_MODEL,
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    sessionPolicy: "continue",
    settingSources: [],
    ...extra,
  };
}

/** A complete request working in `cwd`; tests override what they are about. */
export function openaiRequest(
  cwd: string,
  overrides: Partial<BackendRequest> = {},
): BackendRequest {
  return {
    prompt: "Fix the bug.",
    cwd,
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    env: {},
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The shell command of a hanging tool call: its pid and its child's, in `pidFile`, then a wait. */
export function hangCommand(pidFile: string): string {
  return `echo $$ > ${pidFile}.tmp; sleep 60 & echo $! >> ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; wait`;
}

/** The fake's reply for a contract turn, in the backend's structured-output mode. */
function stepOf(
  turn: ContractTurn,
  mode: "json-schema" | "tool",
  pidFile: () => string,
): ScriptStep {
  switch (turn.kind) {
    case "structured":
      return mode === "tool"
        ? { toolCalls: [{ name: "answer", arguments: turn.output }] }
        : { text: JSON.stringify(turn.output) };
    case "text":
      return { text: turn.text };
    case "rate_limit":
      return { status: 429, retryAfter: "1" };
    case "hang":
      return () => ({
        toolCalls: [{ name: "bash", arguments: { command: hangCommand(pidFile()) } }],
      });
  }
}

/** Whether a request carries an earlier query's conversation. */
function carriesHistory(request: ChatRequest | undefined): boolean {
  return (request?.messages.filter((message) => message.role === "user").length ?? 0) > 1;
}

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split(/\s+/).filter(Boolean).map(Number);
}

export async function makeOpenaiContractHarness(
  mode: "json-schema" | "tool",
): Promise<BackendContractHarness> {
  const server: OpenaiServer = await startOpenaiServer();
  const cwd = await mkdtemp(path.join(os.tmpdir(), "closer-openai-contract-"));
  const real = makeBackend(openaiBackendConfig(server.baseURL, { structuredOutput: mode }), {
    agentDir: cwd,
  });
  const queries: { firstRequest: number; response?: BackendResponse }[] = [];
  const pidFile = () => path.join(cwd, `pids-${queries.length - 1}`);
  const backend: Backend = {
    ...real,
    async query(request) {
      const query: { firstRequest: number; response?: BackendResponse } = {
        firstRequest: server.requests.length,
      };
      queries.push(query);
      query.response = await real.query(request);
      return query.response;
    },
  };
  return {
    backend,
    script: async (turns) => server.script(turns.map((turn) => stepOf(turn, mode, pidFile))),
    request: (overrides) => openaiRequest(cwd, overrides),
    observed: async () =>
      Promise.all(
        queries.map(async (query, index): Promise<ObservedQuery> => {
          const resumed = carriesHistory(server.requests[query.firstRequest])
            ? queries[index - 1]?.response?.sessionId
            : undefined;
          return {
            ...(resumed === undefined ? {} : { resumedSessionId: resumed }),
            pids: await pidsIn(path.join(cwd, `pids-${index}`)),
          };
        }),
      ),
    cleanup: async () => {
      await server.close();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
