/**
 * Whether processes can join a held sandbox on this machine, and how (docs/sandbox.md#held-sandbox):
 * found once per process, with the sandbox's own start, by holding a sandbox with an empty
 * policy and running `true` in it each way. Where bubblewrap made one user namespace (closer
 * runs as root), its own is the owner of the mounts; otherwise (bubblewrap maps the user to
 * root first, then back) the owner is its parent, which only `nsenter --user-parent`
 * (util-linux 2.39) can join. Where neither works, each entry has a wrap of its own.
 */
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { enteredLaunch, type JoinWay } from "./entered-launch.js";
import { holdSandbox } from "./held-sandbox.js";
import type { SandboxManager } from "./library-host.js";
import { findSandboxTools, type SandboxTools } from "./sandbox-tools.js";
import { TRAMPOLINE } from "./sandboxed-launch.js";

const PROBE_TIMEOUT_MS = 30_000;

/** How processes join held sandboxes here, or why they cannot. */
export type HeldSupport =
  | { readonly joins: true; readonly join: JoinWay; readonly tools: SandboxTools }
  | { readonly joins: false; readonly reason: string };

export async function findHeldSupport(manager: SandboxManager): Promise<HeldSupport> {
  if (process.platform !== "linux")
    return { joins: false, reason: `not on Linux (${process.platform})` };
  const tools = findSandboxTools();
  if ("missing" in tools) {
    return { joins: false, reason: `${tools.missing.join(", ")} not found on PATH` };
  }
  const cwd = tmpdir();
  const commandId = randomBytes(16).toString("base64url");
  let argv: readonly string[];
  try {
    argv = await manager.wrap(
      TRAMPOLINE,
      { filesystem: { allowWrite: [], denyWrite: [], denyRead: [] } },
      { cwd, commandId, commandText: "closer held sandbox probe" },
    );
  } catch (error) {
    return {
      joins: false,
      reason: `the sandbox library could not wrap a holder: ${messageOf(error)}`,
    };
  }
  const tried: string[] = [];
  try {
    const held = await holdSandbox({
      argv,
      attributionKey: Buffer.from(commandId).toString("base64"),
      cwd,
      tools,
    });
    try {
      const ids = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
      for (const throughParent of [false, true]) {
        const join = { throughParent, ...ids };
        const said = await runTrue(
          enteredLaunch(
            { file: "true", args: [], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
            {
              held,
              join,
              attributionKey: held.attributionKey,
              tmpDir: cwd,
              clearNoProxy: false,
              cwd,
            },
          ),
          cwd,
        );
        if (said === undefined) return { joins: true, join, tools };
        tried.push(said);
      }
    } finally {
      await held.end();
    }
  } catch (error) {
    tried.push(messageOf(error));
  } finally {
    manager.cleanupAfterCommand();
  }
  return { joins: false, reason: `a process could not join a held sandbox: ${tried.join("; ")}` };
}

/** Runs the launch; undefined when it exited 0, else what it said. */
async function runTrue(
  launch: { file: string; args: readonly string[]; env: Readonly<Record<string, string>> },
  cwd: string,
): Promise<string | undefined> {
  // Loaded here, not at the top: every command's entry stops the sandbox (docs/cli.md#start-up).
  const { runCommand } = await import("../process/shell-command.js");
  const result = await runCommand({
    command: [launch.file, ...launch.args],
    cwd,
    env: launch.env,
    inheritEnv: false,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  if (result.exitCode === 0) return undefined;
  const said = (result.stderr || result.stdout).trim().split("\n").slice(-2).join(" ");
  return `exit ${result.exitCode}${said === "" ? "" : `: ${said}`}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
