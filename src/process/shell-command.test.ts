import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killProcessGroup, runCommand, startCommand } from "./shell-command.js";

/** Live (non-zombie) processes of a process group, read with `ps`, independently of the unit. */
function liveMembers(processGroupId: number): string[] {
  let listing = "";
  try {
    listing = execFileSync("ps", ["-o", "pid=,stat=,args=", "-g", String(processGroupId)], {
      encoding: "utf8",
    });
  } catch {
    return []; // ps exits 1 when the group is empty
  }
  return listing
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^\d+\s+Z/.test(line));
}

async function waitUntilGone(processGroupId: number, limitMs: number): Promise<string[]> {
  const deadline = Date.now() + limitMs;
  let members = liveMembers(processGroupId);
  while (members.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    members = liveMembers(processGroupId);
  }
  return members;
}

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), "closer-run-command-"));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("runCommand", () => {
  it("captures stdout, stderr and the exit code of a shell command", async () => {
    const result = await runCommand({
      command: "echo out; echo err >&2; exit 3",
      cwd: workDir,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n" });
    expect(result.timedOut).toBe(false);
    expect(result.aborted).toBe(false);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("runs an array command directly, without shell expansion", async () => {
    const result = await runCommand({
      command: ["node", "-e", "process.stdout.write(process.argv[1])", "$HOME *"],
      cwd: workDir,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: "$HOME *" });
  });

  it("runs in cwd with the extra environment added to its own", async () => {
    const result = await runCommand({
      command: 'pwd; echo "$CLOSER_TEST_VALUE"; test -n "$PATH" && echo has-path',
      cwd: workDir,
      env: { CLOSER_TEST_VALUE: "hello there" },
      timeoutMs: 10_000,
    });
    expect(result.stdout.split("\n")).toEqual([workDir, "hello there", "has-path", ""]);
  });

  it("with inheritEnv false, runs with the given environment alone", async () => {
    const result = await runCommand({
      command: 'test -z "$HOME" && echo no-home; echo "$CLOSER_TEST_VALUE"',
      cwd: workDir,
      env: { CLOSER_TEST_VALUE: "only this" },
      inheritEnv: false,
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe("no-home\nonly this\n");
  });

  it("writes input to stdin and closes it", async () => {
    const result = await runCommand({
      command: "cat; echo '[eof]'",
      cwd: workDir,
      input: "line one\nline two\n",
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe("line one\nline two\n[eof]\n");
  });

  it("finishes a command that never reads the input it was given", async () => {
    const result = await runCommand({
      command: "echo ignored",
      cwd: workDir,
      input: "x".repeat(1_000_000),
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: "ignored\n", timedOut: false });
  });

  it("gives an empty stdin when there is no input", async () => {
    const result = await runCommand({ command: "cat", cwd: workDir, timeoutMs: 5_000 });
    expect(result).toMatchObject({ exitCode: 0, stdout: "", timedOut: false });
  });

  it("keeps what the command writes to fd 3 apart, when asked to open it", async () => {
    const result = await runCommand({
      command: "echo out; echo report >&3; echo err >&2",
      cwd: workDir,
      timeoutMs: 10_000,
      reportPipe: true,
    });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: "out\n",
      stderr: "err\n",
      report: "report\n",
    });
    const without = await runCommand({ command: "echo out", cwd: workDir, timeoutMs: 10_000 });
    expect(without.report).toBeUndefined();
  });

  it("captures large output whole", async () => {
    const sizeBytes = 5_000_000;
    const result = await runCommand({
      command: `head -c ${sizeBytes} /dev/zero | tr '\\0' a`,
      cwd: workDir,
      timeoutMs: 20_000,
    });
    expect(result.stdout.length).toBe(sizeBytes);
  });

  it("reports 127 for a command the shell cannot find", async () => {
    const result = await runCommand({
      command: "closer-no-such-command-xyz --flag",
      cwd: workDir,
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain("closer-no-such-command-xyz");
  });

  it("reports 127 for a missing file and 126 for a file that can't be executed", async () => {
    const missing = await runCommand({
      command: [join(workDir, "missing-tool")],
      cwd: workDir,
      timeoutMs: 10_000,
    });
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain("missing-tool");

    const script = join(workDir, "not-executable.sh");
    await writeFile(script, "#!/bin/sh\necho hi\n");
    await chmod(script, 0o644);
    const notExecutable = await runCommand({ command: script, cwd: workDir, timeoutMs: 10_000 });
    expect(notExecutable.exitCode).toBe(126);
  });

  it("on timeout ends the whole process group, background jobs included", async () => {
    const running = startCommand({
      command: "sleep 100 & sleep 100",
      cwd: workDir,
      timeoutMs: 300,
      graceMs: 1_000,
    });
    const processGroupId = running.pid!;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sleeps = liveMembers(processGroupId).filter((line) =>
      /^\d+\s+\S+\s+sleep 100$/.test(line),
    );
    expect(sleeps).toHaveLength(2);
    const result = await running.result;
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.signal).toBe("SIGTERM");
    expect(result.exitCode).toBe(143);
    expect(await waitUntilGone(processGroupId, 2_000)).toEqual([]);
  });

  it("sends SIGKILL after the grace period to a group that ignores SIGTERM", async () => {
    const graceMs = 300;
    const running = startCommand({
      command: "trap '' TERM; sleep 100 & sleep 100; echo unreachable",
      cwd: workDir,
      timeoutMs: 200,
      graceMs,
    });
    const result = await running.result;
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(result.durationMs).toBeGreaterThanOrEqual(200 + graceMs - 50);
    expect(await waitUntilGone(running.pid!, 2_000)).toEqual([]);
  });

  it("ends the whole process group when the signal aborts", async () => {
    const controller = new AbortController();
    const running = startCommand({
      command: "sleep 100 & sleep 100",
      cwd: workDir,
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const result = await running.result;
    expect(result).toMatchObject({ aborted: true, timedOut: false, signal: "SIGTERM" });
    expect(await waitUntilGone(running.pid!, 2_000)).toEqual([]);
  });

  it("does not start work under a signal that already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runCommand({
      command: "sleep 100",
      cwd: workDir,
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(result.aborted).toBe(true);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it("ends background leftovers of a command that finished, so its pipes close", async () => {
    const running = startCommand({
      command: "sleep 100 & echo done",
      cwd: workDir,
      timeoutMs: 20_000,
    });
    const result = await running.result;
    expect(result).toMatchObject({ exitCode: 0, stdout: "done\n", timedOut: false });
    expect(result.durationMs).toBeLessThan(10_000);
    expect(await waitUntilGone(running.pid!, 2_000)).toEqual([]);
  });

  it("ends soon after the command exits although an escaped process holds its pipes, and names it", async () => {
    const running = startCommand({
      command:
        'f=$(mktemp); setsid sh -c "echo \\$\\$ > $f; exec sleep 100" & while [ ! -s $f ]; do sleep 0.05; done; cat $f >&2; rm $f; echo done',
      cwd: workDir,
      timeoutMs: 60_000,
    });
    const result = await running.result;
    const escapedPid = Number(result.stderr.trim().split("\n")[0]);
    try {
      expect(result).toMatchObject({ exitCode: 0, stdout: "done\n", timedOut: false });
      expect(result.leftRunning).toEqual([{ pid: escapedPid, command: "sleep 100" }]);
    } finally {
      if (escapedPid > 0) process.kill(escapedPid, "SIGKILL");
    }
  });

  it("gives up on pipes held open by a process that left the group", async () => {
    const running = startCommand({
      command: "setsid sh -c 'echo $$ >&2; exec sleep 100' & sleep 100",
      cwd: workDir,
      timeoutMs: 200,
      graceMs: 200,
    });
    const result = await running.result;
    const escapedPid = Number(result.stderr.trim().split("\n")[0]);
    try {
      expect(result.timedOut).toBe(true);
    } finally {
      if (escapedPid > 0) process.kill(escapedPid, "SIGKILL");
    }
  });
});

describe("startCommand", () => {
  it("yields stdout lines as they come and still keeps the whole stdout", async () => {
    const running = startCommand({
      command: "printf 'first\\nsecond\\r\\n'; sleep 0.1; printf 'third'",
      cwd: workDir,
      timeoutMs: 10_000,
    });
    const lines: string[] = [];
    for await (const line of running.lines) lines.push(line);
    expect(lines).toEqual(["first", "second", "third"]);
    expect((await running.result).stdout).toBe("first\nsecond\r\nthird");
  });

  it("keeps the lines for a consumer that starts after the command ended", async () => {
    const running = startCommand({ command: "echo a; echo b", cwd: workDir, timeoutMs: 10_000 });
    await running.result;
    const lines: string[] = [];
    for await (const line of running.lines) lines.push(line);
    expect(lines).toEqual(["a", "b"]);
  });

  it("kill() ends the command and reports it as aborted", async () => {
    const running = startCommand({ command: "sleep 100", cwd: workDir, timeoutMs: 60_000 });
    running.kill();
    const result = await running.result;
    expect(result.aborted).toBe(true);
    expect(await waitUntilGone(running.pid!, 2_000)).toEqual([]);
  });

  it("rejects an empty command array", () => {
    expect(() => startCommand({ command: [], cwd: workDir, timeoutMs: 1_000 })).toThrow(TypeError);
  });
});

describe("killProcessGroup", () => {
  it("resolves quietly for a group that does not exist", async () => {
    await expect(killProcessGroup(2 ** 22 + 12_345, 100)).resolves.toBeUndefined();
  });
});
