import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { type HeldProcess, startHeldProcess } from "./held-process.js";

const started: HeldProcess[] = [];

function startShell(script: string): HeldProcess {
  const held = startHeldProcess({
    file: "/bin/sh",
    args: ["-c", script],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  started.push(held);
  return held;
}

function firstLine(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end >= 0) resolve(text.slice(0, end));
    });
    stream.once("end", () => reject(new Error(`no line in ${JSON.stringify(text)}`)));
  });
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  return stat !== "" && state !== "Z" && state !== "X";
}

async function until(check: () => Promise<boolean> | boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(20);
  }
  return check();
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((held) => held.end()));
});

describe("startHeldProcess", () => {
  it("pipes what the process writes to its stdout", async () => {
    const held = startShell("echo hi; exec sleep 60");
    expect(await firstLine(held.stdout)).toBe("hi");
  });

  it("pipes what the process writes to its stderr", async () => {
    const held = startShell("echo oops >&2; exec sleep 60");
    expect(await firstLine(held.stderr)).toBe("oops");
  });

  it("gives the process no input", async () => {
    const held = startShell("if read -r line; then echo got; else echo none; fi; exec sleep 60");
    expect(await firstLine(held.stdout)).toBe("none");
  });

  it("starts the process in a process group of its own", async () => {
    const held = startShell("echo hi; exec sleep 60");
    await firstLine(held.stdout);
    const pid = held.pid!;
    expect(groupExists(pid)).toBe(true);
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    expect(group).toBe(pid);
    expect(group).not.toBe(process.pid);
  });

  it("ends the process and its group, resolving once it ended", async () => {
    const held = startShell("echo hi; exec sleep 60");
    expect(await firstLine(held.stdout)).toBe("hi");
    const pid = held.pid!;
    await held.end();
    expect(await held.ended).toBe("SIGKILL");
    expect(() => process.kill(-pid, 0)).toThrow();
  });

  it("ends a process the held process started in its group", async () => {
    const held = startShell("sleep 60 & echo $!; exec sleep 60");
    const child = Number(await firstLine(held.stdout));
    expect(await running(child)).toBe(true);
    const pid = held.pid!;
    await held.end();
    expect(await until(async () => !(await running(child)))).toBe(true);
    expect(await until(() => !groupExists(pid))).toBe(true);
  });

  it("ends what the process left in its group after it ended by itself", async () => {
    const held = startShell("sleep 60 & echo $!; exit 0");
    const child = Number(await firstLine(held.stdout));
    expect(await held.ended).toBe("exit 0");
    expect(await running(child)).toBe(true);
    await held.end();
    expect(await until(async () => !(await running(child)))).toBe(true);
  });

  it("resolves ended with the exit of a process that ends by itself", async () => {
    const held = startShell("exit 3");
    expect(await held.ended).toBe("exit 3");
    await held.end();
  });

  it("resolves ended with the error of a program that cannot start", async () => {
    const held = startHeldProcess({
      file: "/nonexistent/program",
      args: [],
      cwd: process.cwd(),
      env: {},
    });
    started.push(held);
    expect(await held.ended).toMatch(/ENOENT/);
  });

  it("gives the process only the environment it was given", async () => {
    const held = startHeldProcess({
      file: "/bin/sh",
      args: ["-c", 'echo "$ONLY_THIS/$HOME/$USER"; exec sleep 60'],
      cwd: process.cwd(),
      env: { ONLY_THIS: "given" },
    });
    started.push(held);
    expect(await firstLine(held.stdout)).toBe("given//");
  });
});
