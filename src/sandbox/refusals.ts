/**
 * What the OS sandbox refused a run's processes, judged by the run's own
 * policy (docs/sandbox.md#refusals): the library reports every write it sees
 * and every connection its proxy denied; closer decides which count.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** What a reported write or connection is judged by: the kind's policy, and what the agent ignores. */
export interface RefusalJudge {
  /** The kind's writable places, with the library's own (its temp folder, stdio, /dev, /proc). */
  readonly allowWrite: readonly string[];
  readonly denyWrite: readonly string[];
  /** Refused places and hosts that do not count: they stay refused, the attempt is not failed for them. */
  readonly ignoredPaths: readonly string[];
  readonly ignoredHosts: readonly string[];
}

/**
 * Whether a reported write or connection was refused by the kind's policy and counts. The
 * library's monitor reports every write it sees against the process-wide configuration, not
 * the run's, so each write is judged here: refused when it is outside every writable place,
 * or inside a read-only one; `mkdir -p` of a folder that is already there changes nothing.
 * A refused connection counts unless its host is ignored.
 */
export function isRefusal(line: string, judge: RefusalJudge): boolean {
  const connection = /^deny network-outbound (\S+)/.exec(line);
  if (connection !== null) {
    return !judge.ignoredHosts.some((pattern) => hostMatches(connection[1] ?? "", pattern));
  }
  const write = /^deny (\S+) (\/.*)$/.exec(line);
  if (write === null) return true;
  const [, operation = "", path = ""] = write;
  if (operation === "mkdir" && existsSync(path)) return false;
  if (isPackFreshening(operation, path)) return false;
  if (judge.ignoredPaths.some((place) => isIgnoredAt(path, place))) return false;
  // Making an ignored place makes its folders first (`mkdir -p ~/.config/configstore`).
  if (operation === "mkdir" && judge.ignoredPaths.some((place) => place.startsWith(`${path}/`))) {
    return false;
  }
  const denied = withRealPaths(judge.denyWrite);
  const writable = withRealPaths(judge.allowWrite);
  // A write through a symlink lands where the link points, which the report does not name.
  const landing = FOLLOWS_LINK.test(operation) ? realPathOf(path) : realFolderOf(path);
  return [path, landing].some(
    (written) =>
      denied.some((place) => isInside(written, place)) ||
      !writable.some((place) => isInside(written, place)),
  );
}

/**
 * git writing an object its repository already holds in a pack "freshens" it by setting the
 * pack's times; the packs are read-only (docs/sandbox.md#git), so git writes a loose copy
 * instead and the commit goes on. That refusal is git's housekeeping, not the model's doing.
 */
function isPackFreshening(operation: string, path: string): boolean {
  return /^(utimes?|utimensat)$/.test(operation) && /\/objects\/pack\/[^/]+\.pack$/.test(path);
}

/** The places, and each as its real path where a symlink leads to it. */
function withRealPaths(places: readonly string[]): string[] {
  return [...new Set([...places, ...places.map(realPathOf)])];
}

/** Calls that act on what a symlink at the path points to; the others act on the link itself. */
const FOLLOWS_LINK = /^(open|openat2?|creat|truncate|chmod|fchmodat2?|fchownat|utimes?|utimensat)$/;

/** The path with its symlinks resolved, as far as it exists. */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return realFolderOf(path);
  }
}

/** The path with its folder's symlinks resolved. */
function realFolderOf(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/** `host:port` against `example.com`, `*.example.com`, either with an optional `:port`. */
function hostMatches(hostPort: string, pattern: string): boolean {
  const [host = "", port = ""] = splitPort(hostPort);
  const [name = "", wanted = ""] = splitPort(pattern);
  if (wanted !== "" && wanted !== port) return false;
  return name.startsWith("*.") ? host.endsWith(name.slice(1)) : host === name;
}

function splitPort(hostPort: string): [string, string] {
  const match = /^(.*?)(?::(\d+))?$/.exec(hostPort);
  return [match?.[1] ?? hostPort, match?.[2] ?? ""];
}

/** An ignored place: a folder or file, or with a trailing `*`, every path that starts so. */
function isIgnoredAt(path: string, place: string): boolean {
  return place.endsWith("*") ? path.startsWith(place.slice(0, -1)) : isInside(path, place);
}

function isInside(path: string, place: string): boolean {
  return path === place || path.startsWith(place.endsWith("/") ? place : `${place}/`);
}
