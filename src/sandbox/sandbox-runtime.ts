/**
 * The OS sandbox of this process: Anthropic's sandbox runtime
 * (`@anthropic-ai/sandbox-runtime`: bubblewrap, seccomp and a filtering proxy
 * on Linux, Seatbelt on macOS), loaded on first use, initialized once, and
 * proved by running `true` in it (docs/sandbox.md#where-it-runs): the
 * library's own dependency check passes on a machine without user
 * namespaces, where every sandboxed command then fails.
 */
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import type { HeldSupport } from "./held-join.js";
import { type HostStart, LibraryHost, type SandboxManager } from "./library-host.js";

export type { SandboxManager } from "./library-host.js";

export type SandboxSupport =
  | {
      readonly works: true;
      readonly manager: SandboxManager;
      /** Whether processes join a held sandbox here (docs/sandbox.md#held-sandbox). */
      readonly held: HeldSupport;
    }
  | { readonly works: false; readonly reason: string; readonly fix: string };

/** What to do about a missing dependency: the packages the sandbox runs on. */
const INSTALL_FIX =
  "install bubblewrap, socat and ripgrep (Debian/Ubuntu: apt-get install bubblewrap socat ripgrep), or run with --sandbox off";

/** What to do when the sandbox is there but cannot start a command. */
const NAMESPACES_FIX =
  "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp profile that allows unshare and clone with CLONE_NEWUSER), or run with --sandbox off";

/** The process-wide configuration: no network, no writes; each run's wrap brings its own policy. */
const BASE_CONFIG = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
};

const PROBE_TIMEOUT_MS = 30_000;

/**
 * The sandbox of this process and who holds it. The library is one per process (its
 * `SandboxManager` is a module singleton), so this host is too: `PROCESS_SANDBOX` below.
 */
export class SandboxHost {
  #support: Promise<SandboxSupport> | undefined;
  /** The last stop, which a new start waits for. */
  #stopping: Promise<void> = Promise.resolve();
  /**
   * Runs that hold the sandbox: once none does, it stops (its proxy, its monitor, its mount
   * points), so nothing keeps the process alive; the next run starts it again.
   */
  #holders = 0;

  /** Whether the sandbox works here, found once until it is stopped. */
  support(): Promise<SandboxSupport> {
    this.#support ??= this.#probe();
    return this.#support;
  }

  /** Stops the sandbox (proxy, monitor, mount points); the next `support` starts it again. */
  async stop(): Promise<void> {
    const known = this.#support;
    this.#support = undefined;
    this.#stopping = (async () => {
      const started = await known;
      if (started?.works === true) await (started.manager as LibraryHost).end();
    })();
    await this.#stopping;
  }

  /** A run takes the sandbox, before it asks whether it works. */
  hold(): void {
    this.#holders += 1;
  }

  /** A run is done with the sandbox; the last one stops it. */
  async release(): Promise<void> {
    this.#holders -= 1;
    if (this.#holders === 0) await this.stop();
  }

  async #probe(): Promise<SandboxSupport> {
    await this.#stopping;
    let libraryUrl: string;
    try {
      libraryUrl = pathToFileURL(
        createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime"),
      ).href;
    } catch (error) {
      return {
        works: false,
        reason: `the sandbox library could not be loaded: ${String(error)}`,
        fix: "reinstall closer's dependencies (npm ci)",
      };
    }
    const host = await LibraryHost.start(libraryUrl);
    const proved = await probe(host);
    // Started but unusable: its proxy servers would only keep the process from exiting.
    if (!proved.works) await host.end();
    return proved;
  }
}

/** The one host of this process, as the library it drives is one per process. */
export const PROCESS_SANDBOX = new SandboxHost();

/** Whether the sandbox works here, found once per process. */
export function sandboxSupport(): Promise<SandboxSupport> {
  return PROCESS_SANDBOX.support();
}

/**
 * Starts the sandbox of this process ahead of a run that will ask for it, so its start runs
 * beside the run's own (the tree, the setup); `release` once the run holds it itself, or
 * will not.
 */
export function warmSandbox(): { release(): Promise<void> } {
  PROCESS_SANDBOX.hold();
  void PROCESS_SANDBOX.support();
  let held = true;
  return {
    async release() {
      if (!held) return;
      held = false;
      await PROCESS_SANDBOX.release();
    },
  };
}

/** Stops the sandbox of this process (proxy, monitor, mount points); the next `sandboxSupport` starts it again. */
export function stopSandbox(): Promise<void> {
  return PROCESS_SANDBOX.stop();
}

async function probe(host: LibraryHost): Promise<SandboxSupport> {
  let started: HostStart;
  try {
    started = await host.begin(BASE_CONFIG);
  } catch (error) {
    return {
      works: false,
      reason: `the sandbox library could not be loaded: ${String(error)}`,
      fix: "reinstall closer's dependencies (npm ci)",
    };
  }
  if (!started.supported) {
    return {
      works: false,
      reason: `the OS sandbox does not run on ${process.platform}`,
      fix: "run on Linux or macOS, or run with --sandbox off",
    };
  }
  if ((started.missing ?? []).length > 0) {
    return { works: false, reason: (started.missing ?? []).join("; "), fix: INSTALL_FIX };
  }
  if (started.failed !== undefined) {
    return {
      works: false,
      reason: `the sandbox did not start: ${started.failed}`,
      fix: NAMESPACES_FIX,
    };
  }
  return proveWithTrue(host);
}

/**
 * Proves the sandbox with a `true` run in it: joined to a held sandbox, which proves both the
 * sandbox and the way its processes join it; only where no process can join, in a wrap of its
 * own, which then decides whether the sandbox works at all.
 */
async function proveWithTrue(manager: SandboxManager): Promise<SandboxSupport> {
  // Loaded here, not at the top: only a process that starts the sandbox needs it.
  const { findHeldSupport } = await import("./held-join.js");
  const held = await findHeldSupport(manager);
  if (held.joins) return { works: true, manager, held };
  const cwd = tmpdir();
  try {
    const argv = await manager.wrap(
      "true",
      { filesystem: { allowWrite: [], denyWrite: [], denyRead: [] } },
      { cwd },
    );
    // Loaded here, not at the top: every command's entry stops the sandbox (docs/cli.md#start-up).
    const { runCommand } = await import("../process/shell-command.js");
    const result = await runCommand({
      command: [...argv],
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? cwd },
      inheritEnv: false,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
    manager.cleanupAfterCommand(); // every wrap is ended once: the library counts them
    if (result.exitCode === 0) return { works: true, manager, held };
    const said = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ");
    return {
      works: false,
      reason: `a sandboxed \`true\` failed (exit ${result.exitCode}${said === "" ? "" : `: ${said}`})`,
      fix: NAMESPACES_FIX,
    };
  } catch (error) {
    return {
      works: false,
      reason: `a sandboxed \`true\` could not be made: ${String(error)}`,
      fix: NAMESPACES_FIX,
    };
  }
}
