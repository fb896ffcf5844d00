import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { webhookNotifier } from "../../src/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { DECLARE_ONLY, FIX_AND_DECLARE, makePluginRepo, runWithPlugins } from "./support.js";

interface Received {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: unknown;
}

/** A webhook receiver on loopback, answering every post with `status`. */
async function startReceiver(status: number) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        method: request.method ?? "",
        path: request.url ?? "",
        contentType: request.headers["content-type"] ?? "",
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      });
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(status === 200 ? "ok" : "no_service");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/services/T000/B000/secret-token`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url, received, close };
}

describe("the webhook notifier plugin (docs/plugins.md#example)", () => {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups) await cleanup();
    cleanups = [];
  });

  async function setUp(status: number) {
    const setup = await makePluginRepo();
    const receiver = await startReceiver(status);
    cleanups.push(setup.repo.cleanup, receiver.close);
    return { setup, receiver };
  }

  it("posts a Slack-style summary of the run when it ends", async () => {
    const { setup, receiver } = await setUp(200);
    const backend = makeScriptedBackend([DECLARE_ONLY, FIX_AND_DECLARE]);
    const { result, of } = await runWithPlugins(setup, backend, [
      webhookNotifier({ url: receiver.url }),
    ]);

    expect(result.status).toBe("completed");
    expect(of("plugin-error")).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    const [post] = receiver.received;
    expect(post).toMatchObject({
      method: "POST",
      path: "/services/T000/B000/secret-token",
      contentType: "application/json",
    });
    expect(post?.body).toEqual({
      text: expect.stringMatching(
        new RegExp(
          `^✅ closer run ${result.runId}: completed after 2 iteration\\(s\\), \\$0\\.0000 — `,
        ),
      ),
      run: {
        runId: result.runId,
        status: "completed",
        success: true,
        reason: result.reason,
        iterations: 2,
        costUsd: 0,
        refutedDeclarations: 1,
        warnings: 0,
      },
    });
  });

  it("reports a refused post with its name and without the URL; the run keeps its status", async () => {
    const { setup, receiver } = await setUp(500);
    const backend = makeScriptedBackend([FIX_AND_DECLARE]);
    const { result, of } = await runWithPlugins(setup, backend, [
      webhookNotifier({ url: receiver.url }),
    ]);

    expect(result.status).toBe("completed");
    expect(receiver.received).toHaveLength(1);
    const [failure] = of("plugin-error");
    expect(failure).toMatchObject({
      plugin: "webhook-notifier",
      where: "hooks.onEnd",
      endsRun: false,
    });
    expect(failure?.message).toContain("the webhook answered 500");
    expect(failure?.message).not.toContain("secret-token");
  });

  it("ends the run with status error when it is required and the post is refused", async () => {
    const { setup, receiver } = await setUp(500);
    const backend = makeScriptedBackend([FIX_AND_DECLARE]);
    const { result, of } = await runWithPlugins(setup, backend, [
      webhookNotifier({ url: receiver.url, name: "release-channel", required: true }),
    ]);

    expect(result).toMatchObject({ status: "error", errorCode: "plugin_error" });
    expect(result.reason).toContain('plugin "release-channel" failed in hooks.onEnd');
    expect(of("run-end")[0]).toMatchObject({ status: "error", success: false });
  });
});
