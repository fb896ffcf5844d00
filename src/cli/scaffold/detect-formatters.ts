/**
 * The formatters a project runs over the files `closer init` writes: biome and prettier
 * (docs/cli.md#init-formatters). It only reads files, and changes nothing.
 */

import { importModule } from "../../import-module.js";
import { DEFAULT_JSON_STYLE, type JsonStyle } from "./json-text.js";
import type { ReadProjectFile } from "./project-check.js";

/** How init writes its files so that the project's formatter passes them. */
export interface ProjectFormat {
  /** The layout of agent.json, steps_registry.json and the schema. */
  readonly json: JsonStyle;
  /** Whose layout it is, e.g. `biome formats it (biome.json)`; absent: no formatter was found. */
  readonly jsonSource?: string;
  /** The project formats markdown with prettier: the prompts go into its .prettierignore. */
  readonly prettier: boolean;
}

const BIOME_CONFIGS = ["biome.json", "biome.jsonc"] as const;
const PRETTIER_DATA_CONFIGS = [
  ".prettierrc",
  ".prettierrc.json",
  ".prettierrc.yaml",
  ".prettierrc.yml",
] as const;
/** Configurations that are code: init reads no options from them, prettier's defaults stand. */
const PRETTIER_CODE_CONFIGS = [
  "prettier.config.js",
  "prettier.config.mjs",
  "prettier.config.cjs",
  "prettier.config.ts",
  ".prettierrc.js",
  ".prettierrc.mjs",
  ".prettierrc.cjs",
  ".prettierrc.ts",
  ".prettierrc.json5",
  ".prettierrc.toml",
] as const;

type Options = Readonly<Record<string, unknown>>;

/** biome's layout when its formatter is on, else prettier's, else two spaces in 80 columns. */
export async function detectFormatters(read: ReadProjectFile): Promise<ProjectFormat> {
  const manifest = asOptions(parseJsonc((await read("package.json")) ?? ""));
  const dependencies = {
    ...asOptions(manifest.dependencies),
    ...asOptions(manifest.devDependencies),
  };
  const prettier = await prettierOptions(read, manifest, dependencies);
  const biome = await biomeStyle(read, dependencies);
  if (biome !== undefined) return { ...biome, prettier: prettier !== undefined };
  if (prettier === undefined) return { json: DEFAULT_JSON_STYLE, prettier: false };
  return { json: prettierStyle(prettier.options), jsonSource: prettier.source, prettier: true };
}

async function biomeStyle(
  read: ReadProjectFile,
  dependencies: Options,
): Promise<Omit<ProjectFormat, "prettier"> | undefined> {
  for (const file of BIOME_CONFIGS) {
    const text = await read(file);
    if (text === undefined) continue;
    const config = asOptions(parseJsonc(text));
    const general = asOptions(config.formatter);
    const json = asOptions(asOptions(config.json).formatter);
    if (general.enabled === false || json.enabled === false) return undefined;
    const option = (name: string) => json[name] ?? general[name];
    const width = numberOr(option("indentWidth") ?? option("indentSize"), 2);
    const tabs = option("indentStyle") !== "space";
    return {
      json: {
        indent: tabs ? "\t" : " ".repeat(width),
        indentColumns: width,
        lineWidth: numberOr(option("lineWidth"), 80),
        lineEnding: option("lineEnding") === "crlf" ? "\r\n" : "\n",
        ...(option("expand") === "always" ? { expandArrays: true } : {}),
      },
      jsonSource: `biome formats it (${file})`,
    };
  }
  if (dependencies["@biomejs/biome"] === undefined) return undefined;
  return {
    json: { ...DEFAULT_JSON_STYLE, indent: "\t" },
    jsonSource: "biome formats it by default (@biomejs/biome, no biome.json)",
  };
}

async function prettierOptions(
  read: ReadProjectFile,
  manifest: Options,
  dependencies: Options,
): Promise<{ options: Options; source: string } | undefined> {
  for (const file of PRETTIER_DATA_CONFIGS) {
    const text = await read(file);
    if (text === undefined) continue;
    // Loaded only for a prettier config to read, outside the command bundle (docs/cli.md#code-cache).
    const { parse } = await importModule<typeof import("yaml")>("yaml");
    let options: Options = {};
    try {
      // YAML reads JSON as well.
      options = asOptions(parse(text));
    } catch {
      return { options, source: `prettier formats it by default (${file} could not be read)` };
    }
    return { options, source: `prettier formats it (${file})` };
  }
  if (manifest.prettier !== undefined) {
    return {
      options: asOptions(manifest.prettier),
      source: "prettier formats it (package.json prettier)",
    };
  }
  for (const file of PRETTIER_CODE_CONFIGS) {
    if ((await read(file)) !== undefined) {
      return { options: {}, source: `prettier formats it by default (${file} is code, not read)` };
    }
  }
  if (dependencies.prettier === undefined) return undefined;
  return {
    options: {},
    source: "prettier formats it by default (prettier, no configuration file)",
  };
}

function prettierStyle(options: Options): JsonStyle {
  const width = numberOr(options.tabWidth, 2);
  return {
    indent: options.useTabs === true ? "\t" : " ".repeat(width),
    indentColumns: width,
    lineWidth: numberOr(options.printWidth, 80),
    lineEnding: options.endOfLine === "crlf" ? "\r\n" : "\n",
  };
}

/** What `style` looks like, for init's `format` line: `tabs, 80 columns`. */
export function describeJsonStyle(style: JsonStyle): string {
  const indent = style.indent === "\t" ? "tabs" : `${style.indent.length} spaces`;
  return `${indent}, ${style.lineWidth} columns`;
}

/** JSON with comments and trailing commas (biome.jsonc, package.json), or undefined. */
function parseJsonc(text: string): unknown {
  const stripped = text
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_all, string) => string ?? "")
    .replace(/("(?:[^"\\]|\\.)*")|,(?=\s*[}\]])/g, (_all, string) => string ?? "");
  try {
    return JSON.parse(stripped);
  } catch {
    return undefined;
  }
}

function asOptions(value: unknown): Options {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Options)
    : {};
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : fallback;
}

/**
 * The line of .prettierignore that leaves the prompts of `agent` to closer: prettier would
 * reformat their markdown (wrap, escape, renumber), and they are templates read as written.
 */
export function promptsIgnoreLine(agent: string): string {
  return `.agent/${agent}/prompts/`;
}

/** .prettierignore with the prompts of `agent` ignored; undefined when it already ignores them. */
export function withPromptsIgnored(
  existing: string | undefined,
  agent: string,
): string | undefined {
  const covering = new Set([
    ".agent",
    ".agent/*/prompts",
    `.agent/${agent}`,
    `.agent/${agent}/prompts`,
  ]);
  const lines = (existing ?? "").split(/\r?\n/).map((line) => line.trim());
  const ignored = lines.some((line) => covering.has(line.replace(/^\//, "").replace(/\/$/, "")));
  if (ignored) return undefined;
  const text = existing ?? "";
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  return `${text}${separator}${promptsIgnoreLine(agent)}\n`;
}
