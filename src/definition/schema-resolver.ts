import { readFile } from "node:fs/promises";
import path from "node:path";
import { CloserError } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import type { OutputSchemaRef } from "../ports/registry.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { formatJsonPointer, parseJsonPointer, valueAtPointer } from "./json-pointer.js";
import { closestKey } from "./known-keys.js";
import { isObjectSchema, mergeSchemas } from "./merge-schemas.js";
import { parseJsonText } from "./parse-json-text.js";
import {
  DROPPED_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
} from "./schema-keywords.js";

export interface SchemaResolverOptions {
  /** Reads a schema file as text; default: the file system. */
  readonly readFile?: (file: string) => Promise<string>;
}

/** A place in a schema file: absolute file path and JSON pointer ("" = the whole file). */
interface Location {
  readonly file: string;
  readonly pointer: string;
}

interface Context {
  /** The file the node being resolved is in. */
  readonly file: string;
  /** The `$ref` targets being resolved, outermost first, to detect cycles. */
  readonly chain: readonly Location[];
  /** Pointer tokens of the node inside its file, for messages. */
  readonly site: readonly string[];
}

/**
 * Turns `outputSchemaRef: {file, schema}` into a self-contained JSON Schema the
 * backend accepts: every `$ref` inlined, `allOf` merged into one object schema,
 * and `additionalProperties: false` on every object schema that sets none.
 * Each file is read and parsed once per resolver.
 */
export class SchemaResolver {
  private readonly documents = new Map<string, Promise<unknown>>();
  private readonly resolved = new Map<string, unknown>();
  private readonly readText: (file: string) => Promise<string>;

  constructor(
    private readonly schemasDir: string,
    options: SchemaResolverOptions = {},
  ) {
    this.readText = options.readFile ?? ((file) => readFile(file, "utf8"));
  }

  /** Resolves one schema; throws a CloserError naming file and pointer when it cannot. */
  async resolve(ref: OutputSchemaRef): Promise<JsonSchema> {
    const file = path.resolve(this.schemasDir, ref.file);
    if (!this.holds(file)) {
      throw new CloserError("config_error", `schema file ${ref.file} leaves the schemas folder`, {
        file,
        fix: "name a file inside the agent's schemas/ folder",
      });
    }
    const document = await this.load(file, `schema file ${ref.file}`);
    const pointer = this.locate(document, file, ref.schema);
    const result = await this.resolveLocation({ file, pointer }, { file, chain: [], site: [] });
    if (!isPlainObject(result)) {
      throw new CloserError("config_error", `"${ref.schema}" is not a JSON Schema object`, {
        file,
        jsonPath: pointer || "/",
        fix: "point outputSchemaRef.schema at an object schema",
      });
    }
    return structuredClone(result);
  }

  private load(file: string, description: string): Promise<unknown> {
    let document = this.documents.get(file);
    if (!document) {
      document = this.readText(file).then(
        (text) => parseJsonText(text, file),
        (error: NodeJS.ErrnoException) => {
          throw new CloserError(
            error.code === "ENOENT" ? "not_found" : "config_error",
            `${description} cannot be read: ${error.code === "ENOENT" ? "it does not exist" : error.message}`,
            { file, fix: "create the file or correct the reference", cause: error },
          );
        },
      );
      this.documents.set(file, document);
    }
    return document;
  }

  /** `schema` → pointer: a `#/…` pointer, a top-level key, or a `$defs`/`definitions` name. */
  private locate(document: unknown, file: string, schema: string): string {
    if (schema.startsWith("#")) {
      const pointer = decodeFragment(schema.slice(1), file);
      const tokens = parseJsonPointer(pointer);
      if (tokens && valueAtPointer(document, tokens) !== undefined) return pointer;
      throw this.missingSchema(document, file, schema);
    }
    const candidates = [[schema], ["$defs", schema], ["definitions", schema]];
    const found = candidates.find((tokens) => valueAtPointer(document, tokens) !== undefined);
    if (found) return formatJsonPointer(found);
    throw this.missingSchema(document, file, schema);
  }

  private missingSchema(document: unknown, file: string, schema: string): CloserError {
    const names = isPlainObject(document)
      ? [
          ...Object.keys(document).filter((key) => !key.startsWith("$") && key !== "definitions"),
          ...Object.keys(isPlainObject(document.$defs) ? document.$defs : {}),
          ...Object.keys(isPlainObject(document.definitions) ? document.definitions : {}),
        ]
      : [];
    const found = names.length > 0 ? `schemas there: ${names.join(", ")}` : "no schemas there";
    const suggestion = closestKey(schema, names);
    return new CloserError(
      "config_error",
      `schema "${schema}" not found in ${path.basename(file)} (${found})`,
      {
        file,
        found,
        fix: suggestion
          ? `did you mean "${suggestion}"?`
          : "use a top-level key, a $defs name, or a #/… pointer of that file",
      },
    );
  }

  private async resolveLocation(location: Location, context: Context): Promise<unknown> {
    const key = `${location.file}#${location.pointer}`;
    const chain = [...context.chain, location];
    if (context.chain.some((link) => `${link.file}#${link.pointer}` === key)) {
      throw new CloserError("config_error", `$ref cycle: ${this.describeChain(chain)}`, {
        file: location.file,
        jsonPath: location.pointer || "/",
        fix: "break the cycle: a schema sent to the backend cannot refer to itself",
      });
    }
    const done = this.resolved.get(key);
    if (done !== undefined) return done;
    const document = await this.load(location.file, `schema file ${location.file}`);
    const target = valueAtPointer(document, parseJsonPointer(location.pointer) ?? []);
    const result = await this.resolveNode(target, {
      file: location.file,
      chain,
      site: parseJsonPointer(location.pointer) ?? [],
    });
    this.resolved.set(key, result);
    return result;
  }

  // Children are resolved one after another: a depth-first walk keeps every
  // unfinished location on the current chain, so a cycle is always seen as one.
  private async resolveNode(node: unknown, context: Context): Promise<unknown> {
    if (Array.isArray(node)) {
      const items: unknown[] = [];
      for (const [index, item] of node.entries()) {
        items.push(await this.resolveNode(item, at(context, String(index))));
      }
      return items;
    }
    if (!isPlainObject(node)) return node;
    let schema: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" || DROPPED_KEYWORDS.has(key)) continue;
      schema[key] = await this.resolveKeyword(key, value, at(context, key));
    }
    if (typeof node.$ref === "string") {
      const target = await this.resolveRef(node.$ref, at(context, "$ref"));
      schema = isPlainObject(target) ? mergeSchemas(target, schema) : schema;
    }
    if (Array.isArray(schema.allOf) && schema.allOf.every(isPlainObject)) {
      const { allOf, ...own } = schema;
      schema = [...(allOf as JsonSchema[]), own].reduce(mergeSchemas);
    }
    if (isObjectSchema(schema) && !("additionalProperties" in schema)) {
      schema.additionalProperties = false;
    }
    return schema;
  }

  private async resolveKeyword(key: string, value: unknown, context: Context): Promise<unknown> {
    if (SCHEMA_KEYWORDS.has(key) || SCHEMA_LIST_KEYWORDS.has(key)) {
      return this.resolveNode(value, context);
    }
    if (SCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(value)) {
        map[name] = await this.resolveNode(schema, at(context, name));
      }
      return map;
    }
    return structuredClone(value);
  }

  private async resolveRef(ref: string, context: Context): Promise<unknown> {
    const hash = ref.indexOf("#");
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const fail = (
      message: string,
      fix: string,
      code: "config_error" | "not_found" = "config_error",
    ) =>
      new CloserError(code, message, {
        file: context.file,
        jsonPath: formatJsonPointer(context.site),
        found: ref,
        fix,
      });
    if (/^[a-z][a-z0-9+.-]*:/i.test(filePart)) {
      throw fail(`$ref "${ref}" is a remote reference`, "copy the schema into the schemas folder");
    }
    const pointer = decodeFragment(hash === -1 ? "" : ref.slice(hash + 1), context.file);
    const tokens = parseJsonPointer(pointer);
    if (!tokens) {
      throw fail(`$ref "${ref}" is not a JSON pointer`, 'write the fragment as "#/$defs/<name>"');
    }
    const file =
      filePart === ""
        ? context.file
        : path.resolve(path.dirname(context.file), decodeFragment(filePart, context.file));
    if (!this.holds(file)) {
      throw fail(`$ref "${ref}" leaves the schemas folder`, "copy the schema into schemas/");
    }
    const document = await this.load(file, `schema file ${this.shown(file)}`).catch(
      (error: unknown) => {
        if (!(error instanceof CloserError) || error.code !== "not_found") throw error;
        throw fail(
          `$ref "${ref}" names ${this.shown(file)}, which does not exist`,
          `create schemas/${this.shown(file)}, or correct the $ref`,
          "not_found",
        );
      },
    );
    if (valueAtPointer(document, tokens) === undefined) {
      throw fail(
        `$ref "${ref}" points to nothing: ${path.basename(file)} has no ${pointer || "/"}`,
        "correct the pointer or add the schema it names",
      );
    }
    return this.resolveLocation({ file, pointer }, context);
  }

  /** Whether a schema file is inside the schemas folder (references may not leave it). */
  private holds(file: string): boolean {
    const inside = path.relative(this.schemasDir, file);
    const leaves = inside === ".." || inside.startsWith(`..${path.sep}`);
    return inside !== "" && !leaves && !path.isAbsolute(inside);
  }

  /** A schema file as its path inside the schemas folder. */
  private shown(file: string): string {
    return path.relative(this.schemasDir, file).replaceAll(path.sep, "/");
  }

  private describeChain(chain: readonly Location[]): string {
    return chain
      .map((link, index) => {
        const previous = chain[index - 1];
        const file = path.relative(this.schemasDir, link.file) || path.basename(link.file);
        return previous?.file === link.file ? `#${link.pointer}` : `${file}#${link.pointer}`;
      })
      .join(" → ");
  }
}

function at(context: Context, token: string): Context {
  return { ...context, site: [...context.site, token] };
}

function decodeFragment(text: string, file: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new CloserError("config_error", `"${text}" is not a valid URI fragment`, {
      file,
      fix: "percent-encode special characters in the reference",
    });
  }
}
