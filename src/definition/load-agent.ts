import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { CloserError, CloserErrorList, isCloserError } from "../errors.js";
import { deepFreeze, isPlainObject } from "../plain-object.js";
import type { DefinitionFiles, ResolvedAgent } from "../ports/agent.js";
import { agentFileSchema } from "./agent-file-schema.js";
import { withDefinitionFiles } from "./definition-files.js";
import { type DefinitionSource, readSourceText, readWholeFolder } from "./definition-source.js";
import { isInsidePath } from "./inside-path.js";
import { makeValidationErrors } from "./make-validation-errors.js";
import { normalizeAgentFile } from "./normalize-agent.js";
import { normalizeRegistry } from "./normalize-registry.js";
import { parseJsonText } from "./parse-json-text.js";
import { WORD_PATTERN } from "./path-word.js";
import { registryFileSchema } from "./registry-file-schema.js";

/**
 * A definition file is parsed about once per process: zod's compiled fast
 * path (built on a schema's first parse) costs more than it saves then
 * (docs/cli.md#start-up).
 */
const ONE_PARSE = { jitless: true } as const;

export interface LoadAgentOptions {
  /** The project folder; agents live in `<cwd>/.agent/<name>/`. */
  readonly cwd: string;
  /** The agent's folder when it is not `<cwd>/.agent/<name>/` (a run's definition snapshot). */
  readonly dir?: string;
  /**
   * The agent folder's files already read (a run's definition snapshot, hashed
   * for its check); without it the folder is read once here.
   */
  readonly files?: DefinitionFiles;
}

/** One agent found under `.agent/`, as `closer list` shows it. */
export interface AgentListing {
  readonly name: string;
  /** agent.json's description, when it could be read. */
  readonly description: string;
  /** Absolute path of the agent folder. */
  readonly dir: string;
  /** Why the agent does not load; absent when it does. */
  readonly error?: CloserError;
}

/**
 * What reading an agent found: every problem of both files, and the agent itself whenever
 * both files are well-formed (so `closer validate` can go on checking it despite problems
 * such as a name that differs from its folder).
 */
export interface AgentReading {
  readonly agent?: ResolvedAgent;
  readonly problems: readonly CloserError[];
  /** agent.json's description, when it could be read. */
  readonly description: string;
}

/** Folder that holds the agents of a project. */
function agentsDir(cwd: string): string {
  return path.resolve(cwd, ".agent");
}

/**
 * Loads `.agent/<name>/agent.json` and its steps registry into a deeply frozen
 * ResolvedAgent, parsed from the folder's files read once and kept with it as
 * `definitionFiles` (a run's snapshot is written from them). Throws a CloserError:
 * `not_found` (folder or file missing), `parse_error` (JSON syntax, with line and
 * column), or a CloserErrorList of `validation_error`s (every problem of both files at once).
 */
export async function loadAgent(name: string, options: LoadAgentOptions): Promise<ResolvedAgent> {
  const { files } = options;
  const { agent, problems } = await readAgentFrom(name, options.cwd, {
    ...(options.dir === undefined ? {} : { dir: options.dir }),
    files: files === undefined ? readWholeFolder : async () => files,
  });
  if (problems.length > 0 || agent === undefined) throw combine(problems);
  return agent;
}

/** Every agent under `.agent/`, sorted by name; one that fails to load carries its error. */
export async function listAgents(cwd: string): Promise<AgentListing[]> {
  const names = await agentNames(cwd);
  return Promise.all(
    names.map(async (name) => {
      const { problems, description } = await readAgent(name, cwd);
      const dir = path.join(agentsDir(cwd), name);
      return problems.length > 0
        ? { name, description, dir, error: combine(problems) }
        : { name, description, dir };
    }),
  );
}

async function agentNames(cwd: string): Promise<string[]> {
  const root = agentsDir(cwd);
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return [];
    throw error;
  }
  const isFolder = await Promise.all(
    entries.map((entry) =>
      stat(path.join(root, entry)).then(
        (info) => info.isDirectory(),
        () => false,
      ),
    ),
  );
  return entries.filter((_, index) => isFolder[index]).sort();
}

/** Reads and checks `.agent/<name>/` (or `dir`) without throwing for what is wrong with it. */
export async function readAgent(name: string, cwd: string, dir?: string): Promise<AgentReading> {
  return await readAgentFrom(name, cwd, dir === undefined ? {} : { dir });
}

/** How an agent is read: its folder, and the folder's files when they are read whole. */
interface ReadFrom {
  readonly dir?: string;
  readonly files?: (dir: string) => Promise<DefinitionFiles | undefined>;
}

async function readAgentFrom(name: string, cwd: string, from: ReadFrom): Promise<AgentReading> {
  let description = "";
  try {
    assertAgentName(name);
    const dir = from.dir ?? path.join(agentsDir(cwd), name);
    const files = await from.files?.(dir);
    const source: DefinitionSource = {
      dir,
      ...(files === undefined ? {} : { files }),
      readFromDisk: false,
    };
    const agentFile = path.join(dir, "agent.json");
    const agentData = parseJsonText(await readAgentJson(source, name, cwd), agentFile);
    description = descriptionOf(agentData);
    const problems: CloserError[] = [];
    const agentResult = agentFileSchema.safeParse(agentData, ONE_PARSE);
    if (!agentResult.success) {
      problems.push(...validationErrors(agentResult.error, agentFile, agentData, agentFileSchema));
    }
    const registryFile = path.resolve(dir, registryPathOf(agentData));
    const registryResult = await readRegistry(source, registryFile, problems);
    if (!agentResult.success || registryResult === undefined) return { problems, description };
    const agent = normalizeAgentFile(agentResult.data, { name, dir, file: agentFile });
    const registry = normalizeRegistry(registryResult, {
      file: registryFile,
      agentName: name,
      agentDir: dir,
      validatorTimeoutMs: agent.value.runner.budgets.validatorTimeoutMs,
      agentJsonFile: agentFile,
      ...(agent.value.entryStep === undefined ? {} : { entryStep: agent.value.entryStep }),
    });
    problems.push(...agent.problems, ...registry.problems);
    const resolved: ResolvedAgent = {
      name,
      description: agent.value.description,
      dir,
      files: { agentJson: agentFile, registry: registryFile },
      parameters: agent.value.parameters,
      runner: agent.value.runner,
      registry: registry.value,
    };
    // Only an agent parsed wholly from the files read carries them.
    const loadedFrom = source.readFromDisk ? undefined : source.files;
    return { agent: deepFreeze(withDefinitionFiles(resolved, loadedFrom)), problems, description };
  } catch (error) {
    if (isCloserError(error)) return { problems: [error], description };
    throw error;
  }
}

function assertAgentName(name: string): void {
  if (!WORD_PATTERN.test(name)) {
    throw new CloserError("usage_error", `"${name}" is not a valid agent name`, {
      expected: `a name matching ${WORD_PATTERN}`,
      found: JSON.stringify(name),
      fix: 'use lowercase letters, digits, ".", "_" and "-", starting with a letter or digit',
    });
  }
}

async function readAgentJson(source: DefinitionSource, name: string, cwd: string): Promise<string> {
  const file = path.join(source.dir, "agent.json");
  try {
    return await readSourceText(source, file);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw unreadable(file, error);
    const dir = path.dirname(file);
    const folderExists = await stat(dir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    const others = (await agentNames(cwd)).filter((other) => other !== name);
    const known = others.length > 0 ? `agents here: ${others.join(", ")}` : "no agents here yet";
    throw new CloserError(
      "not_found",
      folderExists
        ? `agent "${name}" has no agent.json (looked for ${file})`
        : `agent "${name}" not found: ${dir} does not exist (${known})`,
      {
        file,
        found: known,
        fix: folderExists
          ? `add agent.json to ${dir}, or run \`closer init ${name}\` in a project without it`
          : `run \`closer init ${name}\` to create it, or \`closer list\` to see the agents there are`,
      },
    );
  }
}

async function readRegistry(source: DefinitionSource, file: string, problems: CloserError[]) {
  let text: string;
  try {
    text = await readSourceText(source, file);
  } catch (error) {
    problems.push(
      errorCode(error) === "ENOENT"
        ? new CloserError("not_found", `steps registry not found: ${file} does not exist`, {
            file,
            fix: "create it, or point runner.registry in agent.json at the right file",
          })
        : unreadable(file, error),
    );
    return undefined;
  }
  try {
    const data = parseJsonText(text, file);
    const result = registryFileSchema.safeParse(data, ONE_PARSE);
    if (result.success) return result.data;
    problems.push(...validationErrors(result.error, file, data, registryFileSchema));
  } catch (error) {
    if (!isCloserError(error)) throw error;
    problems.push(error);
  }
  return undefined;
}

function validationErrors(error: z.ZodError, file: string, data: unknown, schema: z.ZodType) {
  let jsonSchema: Record<string, unknown> | undefined;
  return makeValidationErrors(error.issues, {
    file,
    data,
    jsonSchema: () => {
      jsonSchema ??= z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
      return jsonSchema;
    },
  });
}

/** One missing or unparsable file is reported alone; validation problems always as a list. */
function combine(problems: readonly CloserError[]): CloserError {
  const only = problems[0];
  if (problems.length === 1 && only && only.code !== "validation_error") return only;
  return new CloserErrorList(problems);
}

function registryPathOf(data: unknown): string {
  const runner = isPlainObject(data) ? data.runner : undefined;
  const registry = isPlainObject(runner) ? runner.registry : undefined;
  // A path that leaves the agent folder is reported by the schema and never read.
  return typeof registry === "string" && isInsidePath(registry) ? registry : "steps_registry.json";
}

function descriptionOf(data: unknown): string {
  return isPlainObject(data) && typeof data.description === "string" ? data.description : "";
}

function unreadable(file: string, error: unknown): CloserError {
  return new CloserError("config_error", `cannot read ${file}: ${(error as Error).message}`, {
    file,
    fix: "check that it is a readable file",
    cause: error,
  });
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
