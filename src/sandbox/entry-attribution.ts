/**
 * What a query or check in the sandbox is known by (docs/sandbox.md#refusals): a network allow
 * list registered under a random id of its own, the name the library reports its refusals by,
 * and the watch of its refused connections; when it leaves, what was refused, judged.
 */
import { randomBytes } from "node:crypto";
import { CloserError } from "../errors.js";
import type { ProcessKind } from "../ports/process.js";
import { type RefusalWatch, watchRefusedConnections } from "./refusal-watch.js";
import { isRefusal, type RefusalJudge } from "./refusals.js";
import type { KindPolicy } from "./sandbox-policy.js";
import type { SandboxManager } from "./sandbox-runtime.js";

/** The run's book of refusals that every entry's attribution writes to. */
export interface RefusalBook {
  readonly manager: SandboxManager;
  readonly options: { readonly runId: string; readonly agentFile: string };
  /** What the library reported, by the label of the entry it came from. */
  readonly reported: Map<string, string[]>;
  /** The watch of each entry's refused connections, by its label. */
  readonly watches: Map<string, RefusalWatch>;
  /** What was refused and counts, by kind, until the loop takes it. */
  readonly refused: Record<ProcessKind, string[]>;
  readonly judgeOf: (rules: KindPolicy, unheld: readonly string[]) => RefusalJudge;
}

/**
 * What an entry is known by: its network allow list, the name the library reports its
 * refusals by, and the watch of its refused connections (docs/sandbox.md#refusals).
 */
export interface Attribution {
  readonly commandId: string;
  readonly label: string;
  readonly refused: AbortSignal;
  /** Takes what was refused once the library delivered it, judged, and forgets the entry. */
  end(beforeJudging?: () => void): Promise<void>;
  forget(): void;
}

export async function attribute(
  run: RefusalBook,
  stay: {
    readonly kind: ProcessKind;
    readonly entry: number;
    readonly rules: KindPolicy;
    readonly unheld: readonly string[];
  },
  labelled: boolean,
): Promise<Attribution> {
  const { manager, options } = run;
  const { kind, rules, unheld } = stay;
  const commandId = randomBytes(16).toString("base64url");
  let label = `closer ${options.runId} ${kind} ${stay.entry}`;
  const forget = () => {
    manager.unregisterHosts(commandId);
    run.reported.delete(label);
    run.watches.delete(label);
  };
  // Two messages to the library's process, sent at once.
  const [, named] = await Promise.all([
    registerHosts(manager, commandId, { hosts: rules.hosts, kind, agentFile: options.agentFile }),
    labelled ? manager.labelCommand(commandId, label).catch(() => false) : true,
  ]);
  // The monitor names a refusal by the text registered for its key, or by the key itself.
  if (!named) label = commandId;
  const watch = watchRefusedConnections(kind, run.judgeOf(rules, unheld));
  run.reported.set(label, []);
  run.watches.set(label, watch);
  return {
    commandId,
    label,
    refused: watch.signal,
    forget,
    async end(beforeJudging) {
      await manager.refusalsDelivered();
      beforeJudging?.();
      const lines = run.reported.get(label) ?? [];
      forget();
      const judge = run.judgeOf(rules, unheld);
      run.refused[kind].push(...lines.filter((line) => isRefusal(line, judge)));
    },
  };
}

export async function registerHosts(
  manager: SandboxManager,
  commandId: string,
  { hosts, kind, agentFile }: { hosts: readonly string[]; kind: ProcessKind; agentFile: string },
): Promise<void> {
  try {
    await manager.registerHosts(commandId, hosts);
  } catch (error) {
    const field = kind === "backend" ? "allowedDomains" : "validatorDomains";
    throw new CloserError("config_error", `a host the sandbox cannot allow: ${String(error)}`, {
      file: agentFile,
      jsonPath: `runner.sandbox.${field}`,
      found: hosts.join(", "),
      fix: "write each host as example.com, *.example.com or 127.0.0.1, with an optional :port",
    });
  }
}
