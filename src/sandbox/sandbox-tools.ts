/**
 * The programs a process of a held sandbox starts through (docs/sandbox.md#held-sandbox):
 * util-linux's `nsenter`, `unshare` and `setpriv`. Found once, by absolute path, on closer's
 * PATH; the sandbox sees the same root.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface SandboxTools {
  readonly nsenter: string;
  readonly unshare: string;
  readonly setpriv: string;
}

const NAMES = ["nsenter", "unshare", "setpriv"] as const;

function onPath(name: string, path: string): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The tools by absolute path, or the names of those missing. */
export function findSandboxTools(
  path = process.env.PATH ?? "",
): SandboxTools | { readonly missing: readonly string[] } {
  const found: Partial<Record<(typeof NAMES)[number], string>> = {};
  const missing: string[] = [];
  for (const name of NAMES) {
    const at = onPath(name, path);
    if (at === undefined) missing.push(name);
    else found[name] = at;
  }
  if (missing.length > 0) return { missing };
  return found as SandboxTools;
}
