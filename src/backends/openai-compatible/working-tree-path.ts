import { realpath } from "node:fs/promises";
import path from "node:path";
import { isInsideFolder } from "../../definition/inside-path.js";

/** A path a tool was given, resolved inside the working tree, or why it may not be used. */
export type TreePath = { ok: true; file: string } | { ok: false; reason: string };

/** The nearest existing ancestor of `file` (itself when it exists), with symlinks resolved. */
async function realExistingPart(file: string): Promise<string> {
  let current = file;
  for (;;) {
    try {
      const real = await realpath(current);
      return path.join(real, path.relative(current, file));
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return file;
      current = parent;
    }
  }
}

/**
 * Resolves `given` against the working tree `root`; refuses a path that leaves
 * the tree, by `..` or absolute, or through a symlink that lands outside.
 */
export async function resolveInsideTree(root: string, given: string): Promise<TreePath> {
  const file = path.resolve(root, given);
  const realRoot = await realpath(root);
  const realFile = await realExistingPart(file);
  const inside = (folder: string, target: string) =>
    target === folder || isInsideFolder(folder, target);
  if (!inside(root, file) || !inside(realRoot, realFile)) {
    return { ok: false, reason: `${given} is outside the working tree; use a path inside it` };
  }
  return { ok: true, file };
}

/** Why writing `file` (absolute) is refused because it is, or is inside, a protected path; or undefined. */
export function protectedWriteRefusal(
  file: string,
  given: string,
  protectedPaths: readonly string[],
): string | undefined {
  const hit = protectedPaths.find((entry) => file === entry || isInsideFolder(entry, file));
  if (hit === undefined) return undefined;
  return (
    `${given} is protected: it defines how closer checks the work, and it must stay as it was ` +
    "when the run started. Change the code under test instead."
  );
}
