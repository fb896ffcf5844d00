import { describe, expect, it } from "vitest";
import { SessionStore } from "./session-store.js";

describe("SessionStore", () => {
  it("carries a session's messages to the next query; a new session starts empty", () => {
    const store = new SessionStore<string>();
    const first = store.open(undefined);
    expect(first?.history).toEqual([]);
    store.save(first?.sessionId ?? "", ["user: fix it", "assistant: done"]);
    expect(store.open(first?.sessionId)?.history).toEqual(["user: fix it", "assistant: done"]);
    const second = store.open(undefined);
    expect(second?.sessionId).not.toBe(first?.sessionId);
    expect(second?.history).toEqual([]);
  });

  it("knows a session it opened before anything was saved, and no other", () => {
    const store = new SessionStore<string>();
    const opened = store.open(undefined);
    expect(store.open(opened?.sessionId)).toEqual({ sessionId: opened?.sessionId, history: [] });
    expect(store.open("from-another-process")).toBeUndefined();
  });
});
