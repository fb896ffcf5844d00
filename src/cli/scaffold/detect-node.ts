import {
  NO_FINDINGS,
  type ProjectCheck,
  type ProjectFindings,
  type ReadProjectFile,
  type SkippedCheck,
} from "./project-check.js";

type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** Lockfiles, in the order they are looked for; the first one present names the package manager. */
const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

/** `bun test` is bun's own test runner, not the script: bun runs every script with `bun run`. */
function runScript(manager: PackageManager, script: string): string {
  if (script === "test" && manager !== "bun") return `${manager} test`;
  return `${manager} run ${script}`;
}

/**
 * Runs a binary the project installed, never one fetched by name: bare `npx`
 * and `bunx` would download an unrelated package called `tsc` on a fresh clone.
 */
const EXECUTE: Readonly<Record<PackageManager, string>> = {
  npm: "npx --no-install",
  pnpm: "pnpm exec",
  yarn: "yarn",
  bun: "bun run",
};

/** Scripts that type-check, best first. */
const TYPECHECK_SCRIPTS = ["typecheck", "type-check", "check"] as const;

/** What `npm init` writes as the test script: no tests at all. */
const PLACEHOLDER_TEST = /no test specified/;

interface PackageJson {
  readonly packageManager?: unknown;
  readonly scripts?: unknown;
  readonly dependencies?: unknown;
  readonly devDependencies?: unknown;
}

/** npm, pnpm, yarn or bun: package.json's scripts, and tsc when the project is TypeScript. */
export async function detectNode(read: ReadProjectFile): Promise<ProjectFindings> {
  const text = await read("package.json");
  if (text === undefined) return NO_FINDINGS;
  let manifest: PackageJson;
  try {
    manifest = JSON.parse(text) as PackageJson;
  } catch {
    return {
      found: ["package.json"],
      checks: [],
      skipped: [{ what: "package.json", why: "it is not valid JSON; fix it and run init again" }],
    };
  }
  const { manager, reason } = await packageManager(manifest, read);
  const scripts = stringRecord(manifest.scripts);
  const checks: ProjectCheck[] = [];
  const skipped: SkippedCheck[] = [];
  const script = (name: string) => `package.json scripts.${name}`;

  const test = scripts.test;
  if (test !== undefined && !PLACEHOLDER_TEST.test(test)) {
    checks.push(scriptCheck("test", runScript(manager, "test"), script("test"), "parseTestOutput"));
  } else {
    if (test !== undefined) skipped.push({ what: script("test"), why: "it is npm's placeholder" });
    skipped.push(...otherScripts(scripts, "test", manager));
  }
  for (const name of TYPECHECK_SCRIPTS) {
    if (scripts[name] === undefined) continue;
    checks.push(
      scriptCheck("typecheck", runScript(manager, name), script(name), "parseTypeErrors"),
    );
  }
  checks.push(...(await tscCheck(manifest, read, manager, skipped)));
  if (scripts.lint !== undefined) {
    checks.push(scriptCheck("lint", runScript(manager, "lint"), script("lint"), "parseLintErrors"));
  } else {
    skipped.push(...otherScripts(scripts, "lint", manager));
  }
  return { found: [`package.json (${manager}, ${reason})`], checks, skipped };
}

function scriptCheck(
  role: ProjectCheck["role"],
  command: string,
  source: string,
  parser: ProjectCheck["parser"],
): ProjectCheck {
  return { role, command, source, parser };
}

async function packageManager(
  manifest: PackageJson,
  read: ReadProjectFile,
): Promise<{ manager: PackageManager; reason: string }> {
  const declared =
    typeof manifest.packageManager === "string"
      ? /^(npm|pnpm|yarn|bun)@/.exec(manifest.packageManager)?.[1]
      : undefined;
  if (declared !== undefined) {
    return { manager: declared as PackageManager, reason: "from the packageManager field" };
  }
  for (const [file, manager] of LOCKFILES) {
    if ((await read(file)) !== undefined) return { manager, reason: `from ${file}` };
  }
  return { manager: "npm", reason: "no lockfile" };
}

/** The project's own `tsc --noEmit` for a TypeScript project that has no type-check script of its own. */
async function tscCheck(
  manifest: PackageJson,
  read: ReadProjectFile,
  manager: PackageManager,
  skipped: SkippedCheck[],
): Promise<ProjectCheck[]> {
  if ((await read("tsconfig.json")) === undefined) return [];
  const hasTypescript =
    stringRecord(manifest.dependencies).typescript !== undefined ||
    stringRecord(manifest.devDependencies).typescript !== undefined;
  if (!hasTypescript) {
    skipped.push({ what: "tsc", why: "tsconfig.json is there, but typescript is no dependency" });
    return [];
  }
  const command = `${EXECUTE[manager]} tsc --noEmit`;
  return [
    scriptCheck(
      "typecheck",
      command,
      "tsconfig.json; the project's installed typescript",
      "parseTypeErrors",
    ),
  ];
}

/** Scripts like `test:unit` when there is no `test`: named, not chosen, since which one is meant is a guess. */
function otherScripts(
  scripts: Readonly<Record<string, string>>,
  role: "test" | "lint",
  manager: PackageManager,
): SkippedCheck[] {
  return Object.keys(scripts)
    .filter((name) => name.startsWith(`${role}:`) || name.startsWith(`${role}-`))
    .map((name) => ({
      what: `package.json scripts.${name}`,
      why:
        role === "test"
          ? `not named "test"; to use it: --test-command "${runScript(manager, name)}"`
          : `not named "lint"; add it to steps_registry.json by hand to use it`,
    }));
}

function stringRecord(value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}
