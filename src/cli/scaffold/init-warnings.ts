/**
 * What `closer init` warns about before a run would find it: a chosen check whose program is
 * not on PATH, a project outside any git repository (docs/cli.md#init-warnings). Both are read
 * from the file system; nothing is run.
 */
import { access, constants, stat } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import type { ProjectCheck } from "./project-check.js";

/** A program the chosen checks start, missing from PATH, and the validators that start it. */
export interface MissingProgram {
  readonly program: string;
  readonly validators: readonly string[];
}

/** The program a command starts: its first word; undefined for a path or a variable assignment. */
export function programOf(command: string): string | undefined {
  const first = command.trim().split(/\s+/)[0] ?? "";
  if (first === "" || /[/\\=$`'"{}]/.test(first)) return undefined;
  return first;
}

/** The programs of `checks` (with their validator names) that no folder of `path` holds. */
export async function missingPrograms(
  checks: readonly { readonly check: ProjectCheck; readonly validator: string }[],
  path: string = process.env.PATH ?? "",
): Promise<MissingProgram[]> {
  const byProgram = new Map<string, string[]>();
  for (const { check, validator } of checks) {
    const program = programOf(check.command);
    if (program === undefined) continue;
    byProgram.set(program, [...(byProgram.get(program) ?? []), validator]);
  }
  const missing: MissingProgram[] = [];
  for (const [program, validators] of byProgram) {
    if (!(await onPath(program, path))) missing.push({ program, validators });
  }
  return missing;
}

/** Whether a folder of `path` (a PATH value) holds `program` as an executable file. */
export async function onPath(program: string, path: string): Promise<boolean> {
  const extensions =
    process.platform === "win32"
      ? ["", ...(process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";")]
      : [""];
  for (const folder of path.split(delimiter).filter((entry) => entry !== "")) {
    for (const extension of extensions) {
      const file = join(folder, program + extension);
      const executable = await access(file, constants.X_OK).then(
        () => stat(file).then((info) => info.isFile()),
        () => false,
      );
      if (executable) return true;
    }
  }
  return false;
}

/** `dir` or a folder above it holds `.git` (a folder, or the file of a worktree or submodule). */
export async function insideGitRepository(dir: string): Promise<boolean> {
  let folder = dir;
  for (;;) {
    const found = await stat(join(folder, ".git")).then(
      () => true,
      () => false,
    );
    if (found) return true;
    const parent = dirname(folder);
    if (parent === folder) return false;
    folder = parent;
  }
}
