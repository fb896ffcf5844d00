import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  openaiBackendConfig,
  openaiRequest,
} from "../../../test/doubles/openai-server/contract-harness.js";
import {
  type OpenaiServer,
  startOpenaiServer,
} from "../../../test/doubles/openai-server/openai-server.js";
import type { Backend } from "../../ports/backend.js";
import type { BackendConfig } from "../../ports/runner-config.js";
import { makeBackend } from "../make-backend.js";

let server: OpenaiServer;
let cwd: string;

beforeEach(async () => {
  server = await startOpenaiServer({ apiKey: "sk-right" });
  cwd = await mkdtemp(path.join(os.tmpdir(), "closer-openai-errors-"));
});
afterEach(() => server.close());

function backendWith(
  env: Record<string, string | undefined>,
  extra: Partial<BackendConfig> = { apiKeyEnv: "FAKE_ENDPOINT_KEY" },
): Backend {
  return makeBackend(openaiBackendConfig(server.baseURL, extra), { agentDir: cwd, env });
}

const KEYED = { FAKE_ENDPOINT_KEY: "sk-right", PATH: process.env.PATH };

describe("the openai-compatible backend's failures", () => {
  it("sends the key apiKeyEnv names as a bearer token, and keeps it from the model's commands", async () => {
    server.script([
      { toolCalls: [{ name: "bash", arguments: { command: 'echo "key=[$OPENAI_API_KEY]"' } }] },
      { text: "hello" },
    ]);
    const env = { OPENAI_API_KEY: "sk-right", PATH: process.env.PATH };
    const response = await backendWith(env, { apiKeyEnv: "OPENAI_API_KEY" }).query(
      openaiRequest(cwd),
    );
    expect(response.error).toBeUndefined();
    expect(response.text).toBe("hello");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-right");
    const result = server.requests[1]?.messages.find((message) => message.role === "tool");
    expect(result?.content).toContain("key=[]");
  });

  it("makes a 429 a rate limit that waits as long as retry-after says, with no retry of its own", async () => {
    server.script([{ status: 429, retryAfter: "3" }, { text: "too early" }]);
    const response = await backendWith(KEYED).query(openaiRequest(cwd));
    expect(response.error).toMatchObject({
      kind: "rate_limit",
      retryable: true,
      retryAfterMs: 3000,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("makes a 401 an auth error that names apiKeyEnv", async () => {
    const response = await backendWith({ ...KEYED, FAKE_ENDPOINT_KEY: "sk-wrong" }).query(
      openaiRequest(cwd),
    );
    expect(response.error).toMatchObject({ kind: "auth", retryable: false });
    expect(response.error?.message).toContain("HTTP 401");
    expect(response.error?.message).toContain("apiKeyEnv");
  });

  it("names the unset variable apiKeyEnv names, and sends nothing", async () => {
    const response = await backendWith({ PATH: process.env.PATH }).query(openaiRequest(cwd));
    expect(response.error).toMatchObject({ kind: "auth", retryable: false });
    expect(response.error?.message).toContain("FAKE_ENDPOINT_KEY, which is not set");
    expect(server.requests).toHaveLength(0);
  });

  it("times out a model call that never answers", async () => {
    server.script([{ hang: true }]);
    const response = await backendWith(KEYED).query(openaiRequest(cwd, { timeoutMs: 300 }));
    expect(response.error).toMatchObject({ kind: "timeout", retryable: true });
  });

  it("stops a waiting model call when the signal aborts", async () => {
    server.script([{ hang: true }]);
    const controller = new AbortController();
    const pending = backendWith(KEYED).query(openaiRequest(cwd, { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect((await pending).error).toMatchObject({ kind: "aborted", retryable: false });
  });

  it("reports an endpoint nobody listens on as a connection error", async () => {
    await server.close();
    const response = await backendWith(KEYED).query(openaiRequest(cwd));
    expect(response.error).toMatchObject({ kind: "connection", retryable: true });
  });

  it("makes a baseURL without /v1 a configuration error that says where requests go", async () => {
    const response = await backendWith(KEYED, {
      apiKeyEnv: "FAKE_ENDPOINT_KEY",
      baseURL: server.baseURL.replace(/\/v1$/, ""),
    }).query(openaiRequest(cwd));
    expect(response.error).toMatchObject({ kind: "config", retryable: false });
    expect(response.error?.message).toContain("HTTP 404");
    expect(response.error?.message).toContain("<baseURL>/chat/completions");
  });
});
