import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProcessKind } from "../ports/process.js";
import type { HeldSandbox } from "./held-sandbox.js";
import { HeldSandboxes, policyFingerprint } from "./held-sandboxes.js";
import type { KindPolicy } from "./sandbox-policy.js";

const TOOLS = { nsenter: "n", unshare: "u", setpriv: "p" };

interface Started {
  readonly kind: ProcessKind;
  readonly rules: KindPolicy;
  readonly held: HeldSandbox;
  ended: number;
  alive: boolean;
}

function recorder(failures = 0) {
  const started: Started[] = [];
  let toFail = failures;
  const start = async (kind: ProcessKind, rules: KindPolicy): Promise<HeldSandbox> => {
    if (toFail > 0) {
      toFail -= 1;
      throw new Error("the held sandbox did not start");
    }
    const record: Started = {
      kind,
      rules,
      ended: 0,
      alive: true,
      held: {
        namespaces: {
          user: `/proc/1/fd/${10 + started.length}`,
          mnt: "/proc/1/fd/2",
          net: "/proc/1/fd/3",
          pid: "/proc/1/fd/4",
        },
        applySeccomp: "/srt/apply-seccomp",
        env: {},
        unset: [],
        attributionKey: "a2V5",
        keepsSetfcap: false,
        tools: TOOLS,
        alive: () => record.alive,
        end: async () => {
          record.ended += 1;
        },
      },
    };
    started.push(record);
    return record.held;
  };
  return { started, start };
}

let root: string;
let rules: KindPolicy;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "held-sandboxes-"));
  await mkdir(join(root, "work"));
  await writeFile(join(root, "packed-refs"), "one\n");
  rules = {
    allowWrite: [join(root, "work")],
    denyWrite: [join(root, "packed-refs")],
    denyRead: [join(root, "not-yet")],
    hosts: [],
    deniedVariables: ["GITHUB_TOKEN"],
  };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function replacePackedRefs(): Promise<void> {
  await writeFile(join(root, "packed-refs.new"), "two\n");
  await rename(join(root, "packed-refs.new"), join(root, "packed-refs"));
}

describe("policyFingerprint", () => {
  it("stays the same while the rules and their places do", async () => {
    expect(await policyFingerprint(rules)).toBe(await policyFingerprint({ ...rules }));
  });

  it("changes when a place is replaced, created, or the rules change", async () => {
    const before = await policyFingerprint(rules);
    await replacePackedRefs();
    const replaced = await policyFingerprint(rules);
    expect(replaced).not.toBe(before);
    await mkdir(join(root, "not-yet"));
    expect(await policyFingerprint(rules)).not.toBe(replaced);
    const denied = { ...rules, deniedVariables: ["GH_TOKEN"] };
    expect(await policyFingerprint(denied)).not.toBe(await policyFingerprint(rules));
  });
});

describe("HeldSandboxes", () => {
  it("lets entries one after another share one sandbox, and gives entries at once one each", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("validators", rules);
    await first.leave();
    const second = await sandboxes.enter("validators", { ...rules });
    expect(started).toHaveLength(1);
    expect(second.held).toBe(first.held);
    const atOnce = await sandboxes.enter("validators", rules);
    expect(started).toHaveLength(2);
    expect(atOnce.held).not.toBe(second.held);
    await second.leave();
    await atOnce.leave();
    expect(started.map((record) => record.ended)).toEqual([0, 0]);
  });

  it("starts a new sandbox once the holder of the current one has ended", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("backend", rules);
    await first.leave();
    started[0]!.alive = false;
    const second = await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(2);
    expect(second.held).toBe(started[1]!.held);
    expect(started[0]!.ended).toBe(1);
  });

  it("ends a sandbox left not reusable, and starts another for the next entry", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("validators", rules);
    await first.leave({ reusable: false });
    expect(started[0]!.ended).toBe(1);
    const second = await sandboxes.enter("validators", rules);
    expect(second.held).toBe(started[1]!.held);
  });

  it("starts one sandbox per kind of process", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const backend = await sandboxes.enter("backend", rules);
    const validators = await sandboxes.enter("validators", rules);
    expect(started.map((record) => record.kind)).toEqual(["backend", "validators"]);
    expect(validators.held).not.toBe(backend.held);
  });

  it("starts a new sandbox once a place was replaced by a new file", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("backend", rules);
    await replacePackedRefs();
    const second = await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(2);
    expect(second.held).not.toBe(first.held);
  });

  it("starts a new sandbox once a place that did not exist was made", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    await sandboxes.enter("backend", rules);
    await mkdir(join(root, "not-yet"));
    await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(2);
  });

  it("starts a new sandbox when the rules change", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    await sandboxes.enter("backend", rules);
    const more = { ...rules, allowWrite: [...rules.allowWrite, root] };
    await sandboxes.enter("backend", more);
    expect(started.map((record) => record.rules)).toEqual([rules, more]);
  });

  it("ends a replaced sandbox only once its entry has left", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("backend", rules);
    await replacePackedRefs();
    const newer = await sandboxes.enter("backend", rules);
    expect(started[0]!.ended).toBe(0);
    await first.leave();
    expect(started[0]!.ended).toBe(1);
    await newer.leave();
    expect(started[1]!.ended).toBe(0);
  });

  it("ends a replaced sandbox no entry is in when the next one starts", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    await (await sandboxes.enter("backend", rules)).leave();
    await replacePackedRefs();
    await sandboxes.enter("backend", rules);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started[0]!.ended).toBe(1);
    expect(started[1]!.ended).toBe(0);
  });

  it("counts a stay left twice once: the sandbox is not freed under the entry that took it next", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const first = await sandboxes.enter("backend", rules);
    await first.leave();
    const second = await sandboxes.enter("backend", rules);
    await first.leave();
    const third = await sandboxes.enter("backend", rules);
    expect(second.held).toBe(first.held);
    expect(third.held).not.toBe(second.held);
    expect(started).toHaveLength(2);
  });

  it("rejects an entry whose sandbox did not start, and starts again for the next", async () => {
    const { started, start } = recorder(1);
    const sandboxes = new HeldSandboxes(start);
    await expect(sandboxes.enter("backend", rules)).rejects.toThrow("did not start");
    const stay = await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(1);
    expect(stay.held).toBe(started[0]!.held);
  });

  it("ends every sandbox, those replaced and the current ones, each once", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    const old = await sandboxes.enter("backend", rules);
    await replacePackedRefs();
    await sandboxes.enter("backend", rules);
    await sandboxes.enter("validators", rules);
    await sandboxes.end();
    expect(started.map((record) => record.ended)).toEqual([1, 1, 1]);
    await old.leave();
    expect(started[0]!.ended).toBe(1);
  });

  it("starts a new sandbox for an entry after the end", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    await sandboxes.enter("backend", rules);
    await sandboxes.end();
    const stay = await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(2);
    expect(stay.held).toBe(started[1]!.held);
  });

  it("starts a sandbox ahead that the next entry with the same rules joins", async () => {
    const { started, start } = recorder();
    const sandboxes = new HeldSandboxes(start);
    await sandboxes.prepare("validators", rules);
    expect(started).toHaveLength(1);
    const stay = await sandboxes.enter("validators", rules);
    expect(started).toHaveLength(1);
    expect(stay.held).toBe(started[0]!.held);
  });

  it("starts again for the entry when the start ahead failed", async () => {
    const { started, start } = recorder(1);
    const sandboxes = new HeldSandboxes(start);
    await expect(sandboxes.prepare("backend", rules)).resolves.toBeUndefined();
    const stay = await sandboxes.enter("backend", rules);
    expect(started).toHaveLength(1);
    expect(stay.held).toBe(started[0]!.held);
  });
});
