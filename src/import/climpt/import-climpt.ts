import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseJsonText } from "../../definition/parse-json-text.js";
import { WORD_PATTERN } from "../../definition/path-word.js";
import { CloserError } from "../../errors.js";
import { isPlainObject } from "../../plain-object.js";
import { addRunnerVariables } from "./add-runner-variables.js";
import { COPIED_FOLDERS, copyAgentFiles, renameTemplates } from "./copy-agent-files.js";
import { mapAgentJson } from "./map-agent-json.js";
import { mapRegistry } from "./map-registry.js";
import { FileMapping, type ImportReport, type MappingEntry } from "./mapping-report.js";
import { writeCommandPrompts } from "./write-command-prompts.js";

export interface ImportClimptOptions {
  /** The climpt agent folder (`.agent/<name>` of a climpt project). */
  readonly source: string;
  /** The closer agent folder to write; default `<cwd>/.agent/<climpt agent's name>`. */
  readonly out?: string;
  readonly cwd: string;
  /**
   * Flags of closer's own (`--branch`, `--resume`, …): a climpt parameter read from one of them
   * is left to that option, and no added parameter takes one.
   */
  readonly closerFlags?: readonly string[];
}

/**
 * Writes a closer agent folder from a climpt agent folder and reports what each key became
 * and which have no equivalent (docs/cli.md#import-climpt). The source is only read; an
 * output folder that holds anything is refused.
 */
export async function importClimpt(options: ImportClimptOptions): Promise<ImportReport> {
  const source = path.resolve(options.cwd, options.source);
  await requireFolder(source);
  const agentFile = path.join(source, "agent.json");
  const agentData = await readJsonObject(agentFile, "agent.json");
  const name = agentName(options, agentData, source);
  const out = path.resolve(options.cwd, options.out ?? path.join(".agent", name));
  const agentMapping = new FileMapping("agent.json", agentData);
  const closerFlags = new Set(options.closerFlags ?? []);
  const { agentJson, facts } = mapAgentJson(agentData, name, agentMapping, closerFlags);
  const registryFile = path.resolve(source, facts.registryFile);
  const registryData = await readJsonObject(registryFile, facts.registryFile);
  const registryMapping = new FileMapping(facts.registryFile, registryData);
  const { registry, renamed } = mapRegistry(registryData, name, facts, registryMapping);
  await requireEmpty(out);
  await mkdir(out, { recursive: true });
  const fileEntries = await copyAgentFiles(source, out, facts.parameterNames);
  fileEntries.push(...(await renameTemplates(out, renamed)));
  fileEntries.push(...(await writeCommandPrompts(registryData, registry, out, registryMapping)));
  fileEntries.push(...(await addRunnerVariables(out, agentJson, registry, closerFlags)));
  await writeJson(path.join(out, "agent.json"), agentJson);
  await writeJson(path.join(out, "steps_registry.json"), registry);
  const read = ["agent.json", facts.registryFile, ...COPIED_FOLDERS];
  fileEntries.push(...(await filesNotRead(source, read)));
  const entries = [...agentMapping.finish(), ...registryMapping.finish(), ...fileEntries];
  return {
    source,
    out,
    name,
    mapped: entries.filter((entry: MappingEntry) => entry.to !== undefined),
    unmapped: entries.filter((entry: MappingEntry) => entry.to === undefined),
  };
}

/** The closer agent's name is its folder's: `--out`'s last part, else climpt's name. */
function agentName(
  options: ImportClimptOptions,
  agentData: Record<string, unknown>,
  source: string,
) {
  const name =
    options.out !== undefined
      ? path.basename(path.resolve(options.cwd, options.out))
      : typeof agentData.name === "string"
        ? agentData.name
        : path.basename(source);
  if (!WORD_PATTERN.test(name)) {
    throw new CloserError("usage_error", `"${name}" cannot be a closer agent's name`, {
      file: options.out ?? path.join(source, "agent.json"),
      found: name,
      fix: "give --out a folder whose name is lower-case letters, digits, '.', '_' or '-'",
    });
  }
  return name;
}

async function requireFolder(source: string): Promise<void> {
  const info = await stat(source).catch(() => undefined);
  if (info?.isDirectory()) return;
  throw new CloserError("not_found", `no climpt agent folder at ${source}`, {
    file: source,
    fix: "give the path of a climpt agent folder, e.g. ../project/.agent/iterator",
  });
}

async function readJsonObject(file: string, shown: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    throw new CloserError("not_found", `the climpt agent has no ${shown} (looked for ${file})`, {
      file,
      fix: `check that the folder is a climpt agent folder: it holds ${shown}`,
      cause: error,
    });
  });
  const value = parseJsonText(text, file);
  if (isPlainObject(value)) return value;
  throw new CloserError("validation_error", `${shown} does not hold a JSON object`, {
    file,
    found: Array.isArray(value) ? "an array" : typeof value,
    fix: `make ${shown} a JSON object ({ … })`,
  });
}

/** The other files of the climpt folder (its README, registry.json, config.json, …): listed, not read. */
async function filesNotRead(source: string, read: readonly string[]): Promise<MappingEntry[]> {
  const names = (await readdir(source)).sort();
  return names
    .filter((name) => !read.includes(name))
    .map((name) => ({ file: name, from: "", note: "not read: no equivalent in closer" }));
}

async function requireEmpty(out: string): Promise<void> {
  const names = await readdir(out).catch(() => []);
  if (names.length === 0) return;
  throw new CloserError("usage_error", "the folder already holds files; nothing was written", {
    file: out,
    fix: "give --out a new folder, or move the existing one away first",
  });
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
