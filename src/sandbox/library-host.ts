/**
 * The sandbox library in a Node process of its own (docs/sandbox.md#library-host), and
 * closer's side of the messages it answers.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EnvironmentGrant, makeChildEnvironment } from "../process/child-environment.js";
import { startNodeChild } from "../process/node-child.js";
import { LIBRARY_HOST_PROGRAM } from "./library-host-program.js";

/** What closer asks of the sandbox library, which runs in a process of its own (docs/sandbox.md#library-host). */
export interface SandboxManager {
  /** The wrapped command's argv: `config` is the kind's policy, `commandText` labels its refusals. */
  wrap(
    command: string,
    config: unknown,
    options: { readonly cwd: string; readonly commandId?: string; readonly commandText?: string },
  ): Promise<readonly string[]>;
  /** The hosts one wrap's processes may reach; rejects a host the library cannot read. */
  registerHosts(commandId: string, hosts: readonly string[]): Promise<void>;
  unregisterHosts(commandId: string): void;
  /**
   * Has the library name what it reports under `commandId`'s key by `text`; false where the
   * library cannot (a refusal is then named by the key).
   */
  labelCommand(commandId: string, text: string): Promise<boolean>;
  /** Ends one wrap: the library removes its mount points. */
  cleanupAfterCommand(): void;
  /** Every refusal the library reports, by the label of the wrap it came from. */
  onRefusal(listener: (command: string, line: string) => void): () => void;
  /** Resolves once the refusals the library had been sent so far have reached closer. */
  refusalsDelivered(): Promise<void>;
  /** The places the library keeps writable for every sandboxed process (its own temp folder, stdio). */
  readonly defaultWritePaths: readonly string[];
}

/** The library's own settings (`SRT_DEBUG`, where it keeps its temp files), beside the policy's. */
const LIBRARY_SETTINGS: EnvironmentGrant = {
  pass: ["SRT_*", "CLAUDE_TMPDIR", "CLAUDE_CODE_TMPDIR"],
  backend: [],
  validators: [],
  passGithubToken: false,
};

/**
 * The environment of the library's process: the one environment policy's, as a check's
 * (docs/backends.md#environment), so neither closer's GitHub token nor a model key is in the
 * process that runs the proxy the model's processes talk to.
 */
export function libraryHostEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return makeChildEnvironment("validators", env, LIBRARY_SETTINGS);
}

/** What the library's host says of itself when it starts. */
export interface HostStart {
  readonly supported: boolean;
  readonly missing?: readonly string[];
  readonly failed?: string;
  readonly writePaths?: readonly string[];
}

interface HostReply {
  readonly id?: number;
  readonly value?: unknown;
  readonly error?: string;
  readonly refusal?: { readonly command: string; readonly line: string };
}

/**
 * The library in a Node process of its own, working from an empty folder of its own: the
 * library guards shell, git and editor settings in its working folder and holds a stand-in at
 * each one missing, which must never be the tree the model works in (docs/sandbox.md#library-host).
 * It ends when closer closes the channel, or when closer ends, however it ends.
 */
export class LibraryHost implements SandboxManager {
  readonly #child: ReturnType<typeof startNodeChild>;
  readonly #pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void }
  >();
  readonly #listeners = new Set<(command: string, line: string) => void>();
  #next = 0;
  #ended = false;
  defaultWritePaths: readonly string[] = [];

  private constructor(child: ReturnType<typeof startNodeChild>) {
    this.#child = child;
    child.onMessage((message) => this.#receive(message as HostReply));
    void child.exited.then(() => {
      this.#ended = true;
      for (const { reject } of this.#pending.values()) {
        reject(new Error("the sandbox library's process ended"));
      }
      this.#pending.clear();
    });
  }

  static async start(libraryUrl: string): Promise<LibraryHost> {
    // A neutral name, like the scratch folder's (docs/integrity.md#toolchain).
    const cwd = await mkdtemp(join(tmpdir(), "tmp-"));
    return new LibraryHost(
      startNodeChild({
        source: LIBRARY_HOST_PROGRAM,
        args: [libraryUrl],
        cwd,
        env: libraryHostEnvironment(process.env),
      }),
    );
  }

  #receive(reply: HostReply): void {
    if (reply.refusal !== undefined) {
      for (const listener of this.#listeners) listener(reply.refusal.command, reply.refusal.line);
      return;
    }
    const waiting = reply.id === undefined ? undefined : this.#pending.get(reply.id);
    if (waiting === undefined || reply.id === undefined) return;
    this.#pending.delete(reply.id);
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.value);
  }

  #ask<T>(request: string, args?: unknown): Promise<T> {
    if (this.#ended) return Promise.reject(new Error("the sandbox library's process ended"));
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#child.send({ id, request, args });
    });
  }

  async begin(config: unknown): Promise<HostStart> {
    const started = await this.#ask<HostStart>("start", config);
    this.defaultWritePaths = started.writePaths ?? [];
    return started;
  }

  wrap(
    command: string,
    config: unknown,
    options: { readonly cwd: string; readonly commandId?: string; readonly commandText?: string },
  ): Promise<readonly string[]> {
    const { cwd, ...labels } = options;
    const labelled = labels.commandId === undefined ? undefined : labels;
    return this.#ask("wrap", { command, config, cwd, options: labelled });
  }

  registerHosts(commandId: string, hosts: readonly string[]): Promise<void> {
    return this.#ask("register", { commandId, lists: { allowedDomains: [...hosts] } });
  }

  unregisterHosts(commandId: string): void {
    this.#ask("unregister", { commandId }).catch(() => undefined);
  }

  labelCommand(commandId: string, text: string): Promise<boolean> {
    return this.#ask("label", { commandId, text });
  }

  cleanupAfterCommand(): void {
    this.#ask("cleanup").catch(() => undefined);
  }

  onRefusal(listener: (command: string, line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async refusalsDelivered(): Promise<void> {
    await this.#ask("flush").catch(() => undefined);
  }

  /** Stops the library (proxy, monitor, mount points) and its process. */
  async end(): Promise<void> {
    await this.#ask("reset").catch(() => undefined);
    this.#child.disconnect();
    await this.#child.exited;
  }
}
