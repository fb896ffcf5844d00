/**
 * A refused connection seen as it happens (docs/sandbox.md#refused-connection):
 * the proxy reports each denied connection while the process that asked is
 * still running, and an agent CLI retries a refused endpoint until its query
 * times out. The watch judges each report as the refusals are judged when the
 * query ends (`isRefusal`), and one that counts aborts the entry's signal,
 * naming the host and the setting that would allow it.
 */
import type { ProcessKind } from "../ports/process.js";
import { isRefusal, type RefusalJudge } from "./refusals.js";

export interface RefusalWatch {
  /** Aborted at the first refused connection that counts; its reason says which and how to allow it. */
  readonly signal: AbortSignal;
  /** One line the sandbox reported for the entry. */
  see(line: string): void;
}

/** The setting that widens the network of each kind of process (docs/sandbox.md#widening). */
const HOSTS_SETTING: Readonly<Record<ProcessKind, string>> = {
  backend: "runner.sandbox.allowedDomains",
  validators: "runner.sandbox.validatorDomains",
};

export function watchRefusedConnections(kind: ProcessKind, judge: RefusalJudge): RefusalWatch {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    see(line) {
      const host = /^deny network-outbound (\S+)/.exec(line)?.[1];
      if (controller.signal.aborted || host === undefined || !isRefusal(line, judge)) return;
      controller.abort(
        `the OS sandbox refused a connection to ${host} (${line}); to allow it, add "${host}" to ${HOSTS_SETTING[kind]} in agent.json`,
      );
    },
  };
}
