/**
 * The project's setup `closer init` writes as `runner.setup` (docs/definition.md#setup): the
 * install its lockfiles call for, one command per ecosystem found, or the Makefile's own
 * `setup` target. It only reads files.
 */
import type { ReadProjectFile } from "./project-check.js";

/** The setup commands, and what each was chosen from. */
export interface SetupFinding {
  readonly command: string;
  readonly source: string;
}

/**
 * The first lockfile present gives the command, in the order the package manager is chosen
 * (docs/cli.md#init-detection); yarn's depends on its version.
 */
const NODE_INSTALLS: readonly (readonly [string, string])[] = [
  ["pnpm-lock.yaml", "pnpm install --frozen-lockfile"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun install --frozen-lockfile"],
  ["bun.lockb", "bun install --frozen-lockfile"],
  ["package-lock.json", "npm ci"],
  ["npm-shrinkwrap.json", "npm ci"],
];

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

const OTHER_INSTALLS: readonly (readonly [string, string])[] = [
  ["deno.lock", "deno install --frozen"],
  ["uv.lock", "uv sync"],
  ["poetry.lock", "poetry install"],
  ["go.mod", "go mod download"],
  ["Cargo.lock", "cargo fetch"],
];

/** The commands that make a tree of the project ready, in the order they run. */
export async function detectSetup(read: ReadProjectFile): Promise<SetupFinding[]> {
  // The project's own recipe knows its setup best: it alone is the setup.
  for (const file of MAKEFILES) {
    const makefile = await read(file);
    if (makefile === undefined) continue;
    if (/^setup\s*:/m.test(makefile))
      return [{ command: "make setup", source: `${file} target setup` }];
    break;
  }
  const present = async (file: string) => (await read(file)) !== undefined;
  const found: SetupFinding[] = [];
  const node = await nodeInstall(read);
  if (node !== undefined) found.push(node);
  for (const [file, command] of OTHER_INSTALLS) {
    if (await present(file)) found.push({ command, source: file });
  }
  // A requirements.txt alone says nothing of where it is installed (a venv the checks would
  // have to name, the user's interpreter): left to the user (docs/definition.md#setup).
  return found;
}

async function nodeInstall(read: ReadProjectFile): Promise<SetupFinding | undefined> {
  for (const [file, command] of NODE_INSTALLS) {
    if ((await read(file)) === undefined) continue;
    if (command !== "yarn") return { command, source: file };
    // Yarn 2+ (berry) is configured in .yarnrc.yml and spells the frozen install its own way.
    const berry = (await read(".yarnrc.yml")) !== undefined;
    return berry
      ? { command: "yarn install --immutable", source: "yarn.lock, .yarnrc.yml" }
      : { command: "yarn install --frozen-lockfile", source: file };
  }
  // Some projects keep no lockfile on purpose (`package-lock=false` in .npmrc): their
  // dependencies are still theirs to install, and without writing one into the tree.
  return declaresDependencies(await read("package.json"))
    ? { command: "npm install --no-package-lock", source: "package.json, no lockfile" }
    : undefined;
}

function declaresDependencies(packageJson: string | undefined): boolean {
  if (packageJson === undefined) return false;
  try {
    const parsed = JSON.parse(packageJson) as Record<string, unknown>;
    return ["dependencies", "devDependencies", "optionalDependencies"].some(
      (field) => Object.keys((parsed[field] as object | undefined) ?? {}).length > 0,
    );
  } catch {
    return false;
  }
}
