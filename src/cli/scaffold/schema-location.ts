import { access, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** closer's name in the npm registry and in node_modules (docs/cli.md#install). */
export const PACKAGE_NAME = "closer-agent";

/** The JSON schemas closer ships, by the definition file they describe. */
export const SCHEMA_FILES = {
  agent: "agent.schema.json",
  registry: "steps_registry.schema.json",
} as const;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

function nameOf(manifest: string): unknown {
  try {
    return (JSON.parse(manifest) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

/** The folder of the closer package this code runs from: the first one up with closer's package.json. */
export async function runningPackageRoot(
  from: string = import.meta.url,
): Promise<string | undefined> {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
    if (manifest !== undefined && nameOf(manifest) === PACKAGE_NAME) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The `$schema` of a scaffolded definition file in `agentDir` (docs/cli.md#init-schema): a relative
 * path to `node_modules/closer-agent/schemas/<file>` when Node's lookup from the agent folder finds one
 * (closer as a dependency of the project, or linked into it), so the reference holds on every clone;
 * else a `file://` URL of the schema in the closer package that runs (global or npx); undefined
 * when neither exists.
 */
export async function schemaReference(
  agentDir: string,
  file: string,
  packageRoot: string | undefined,
): Promise<string | undefined> {
  for (let dir = agentDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", PACKAGE_NAME, "schemas", file);
    if (await exists(candidate)) return relative(agentDir, candidate).split(sep).join("/");
    if (dirname(dir) === dir) break;
  }
  if (packageRoot === undefined) return undefined;
  const installed = join(packageRoot, "schemas", file);
  return (await exists(installed)) ? pathToFileURL(installed).href : undefined;
}
