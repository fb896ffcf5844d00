import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_COMPLETION_SIGNAL } from "../../src/completion/completion-signal.js";
import type { BackendRequest } from "../../src/ports.js";
import { observeBackend } from "../../src/run/index.js";
import { makeScriptedBackend, scriptedError } from "../../src/testing/index.js";

describe("observeBackend", () => {
  let folder = "";
  afterEach(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  function request(checkId = "check-1"): BackendRequest {
    return {
      prompt: "p",
      cwd: folder,
      allowedTools: [],
      disallowedTools: [],
      permissionMode: "acceptEdits",
      env: { CLOSER_CHECK_ID: checkId },
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    };
  }

  it("acts on a completion declared through any channel, and keeps the declaring answer's summary", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-observe-"));
    const decisionPath = join(folder, "decision.json");
    const declared: string[] = [];
    const backend = observeBackend(
      makeScriptedBackend([
        { structuredOutput: { status: "in_progress", summary: "halfway" } },
        { structuredOutput: { allComplete: true, checklist: [], pendingActions: [] } },
        { text: "All done.\nCOMPLETE" },
        {
          act: () =>
            writeFile(decisionPath, JSON.stringify({ decision: "complete", check_id: "check-4" })),
          text: "wrote the decision file",
        },
        { error: scriptedError("rate_limit") },
      ]),
      {
        completionSignal: DEFAULT_COMPLETION_SIGNAL,
        decisionPath,
        onDeclaredComplete: async () => {
          declared.push(backend.lastSummary() ?? "");
        },
      },
    );
    await backend.query(request());
    expect(backend.lastSummary()).toBe("halfway");
    await backend.query(request());
    expect(backend.lastSummary()).toBe("halfway");
    expect(declared).toEqual([]);
    await backend.query(request());
    expect(declared).toEqual(["All done. COMPLETE"]);
    await backend.query(request("check-4"));
    expect(declared).toHaveLength(2);
    const failed = await backend.query(request());
    expect(failed.error?.kind).toBe("rate_limit");
    expect(declared).toHaveLength(2);
  });

  it("does not act when a decision file left from before the query speaks over a marker, as the loop reads it", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-observe-"));
    const decisionPath = join(folder, "decision.json");
    await writeFile(decisionPath, "PASS\n");
    let declared = 0;
    const backend = observeBackend(
      makeScriptedBackend([
        { text: "Finished.\nCOMPLETE" },
        { act: () => writeFile(decisionPath, "COMPLETE\n"), text: "rewrote the file" },
      ]),
      {
        completionSignal: DEFAULT_COMPLETION_SIGNAL,
        decisionPath,
        onDeclaredComplete: async () => {
          declared += 1;
        },
      },
    );
    await backend.query(request());
    expect(declared).toBe(0);
    await backend.query(request());
    expect(declared).toBe(1);
  });

  it("does not turn a failing action into a failed query", async () => {
    folder = await mkdtemp(join(tmpdir(), "closer-observe-"));
    const backend = observeBackend(
      makeScriptedBackend([{ structuredOutput: { status: "completed" } }]),
      {
        completionSignal: DEFAULT_COMPLETION_SIGNAL,
        decisionPath: join(folder, "decision.json"),
        onDeclaredComplete: () => Promise.reject(new Error("git commit failed")),
      },
    );
    const response = await backend.query(request());
    expect(response.error).toBeUndefined();
  });
});
