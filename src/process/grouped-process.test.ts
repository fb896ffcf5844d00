import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { startGroupedProcess } from "./grouped-process.js";
import { isProcessGroupAlive, waitForProcessGroupExit } from "./process-group.js";

const GRACE_MS = 300;

function startShell(script: string) {
  return startGroupedProcess({
    file: "/bin/sh",
    args: ["-c", script],
    env: { PATH: process.env.PATH },
    graceMs: GRACE_MS,
  });
}

describe("startGroupedProcess", () => {
  it("talks over stdin and stdout and keeps what the process wrote to stderr", async () => {
    const started = startShell("echo oops >&2; cat");
    started.child.stdin.end("hello\n");
    expect(await text(started.child.stdout)).toBe("hello\n");
    await started.settle();
    expect(started.stderr()).toBe("oops\n");
    expect(started.exit()).toEqual({ code: 0, signal: null });
  });

  it("terminates the whole group, with what the process started in the background", async () => {
    const started = startShell("sleep 30 & sleep 30");
    expect(started.pid).toBeDefined();
    await started.terminate();
    expect(await isProcessGroupAlive(started.pid!)).toBe(false);
    expect(started.exit()).toEqual({ code: null, signal: "SIGTERM" });
  });

  it("settles a finished process by ending what it left running", async () => {
    const started = startShell("sleep 30 & echo done");
    expect(await new Promise((done) => started.child.once("exit", done))).toBe(0);
    await started.settle();
    expect(await isProcessGroupAlive(started.pid!)).toBe(false);
  });

  it("stops waiting for pipes held by a process that left the group, and names it", async () => {
    // The escaped process's pid reaches stderr before the shell exits, however slow the machine.
    const started = startShell(
      'f=$(mktemp); setsid sh -c "echo \\$\\$ > $f; exec sleep 30" & while [ ! -s $f ]; do sleep 0.05; done; cat $f >&2; rm $f; echo done',
    );
    const closed = new Promise((done) => started.child.once("close", done));
    expect(await text(started.child.stdout)).toBe("done\n");
    await closed;
    await started.settle();
    const escapedPid = Number(started.stderr().trim());
    try {
      expect(started.leftRunning()).toEqual([{ pid: escapedPid, command: "sleep 30" }]);
    } finally {
      if (escapedPid > 0) process.kill(escapedPid, "SIGKILL");
    }
  });

  it("sends the signal of the child's kill to the whole group", async () => {
    const started = startShell("sleep 30 & sleep 30");
    started.child.kill("SIGKILL");
    expect(await waitForProcessGroupExit(started.pid!, 5000)).toBe(true);
    await started.settle();
  });
});
