import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { SchemaResolver } from "./schema-resolver.js";

const SCHEMAS_DIR = path.resolve("/schemas");

/** A resolver over in-memory files that counts how often each file is read. */
function memoryResolver(files: Record<string, unknown>) {
  const reads = new Map<string, number>();
  const resolver = new SchemaResolver(SCHEMAS_DIR, {
    readFile: async (file) => {
      reads.set(file, (reads.get(file) ?? 0) + 1);
      const name = path.relative(SCHEMAS_DIR, file);
      const content = files[name];
      if (content === undefined) {
        throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
      }
      return typeof content === "string" ? content : JSON.stringify(content, null, 2);
    },
  });
  return { resolver, reads };
}

async function resolutionError(promise: Promise<unknown>): Promise<CloserError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected the resolution to fail");
}

function collect(value: unknown, visit: (schema: JsonSchema) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, visit);
  } else if (value !== null && typeof value === "object") {
    visit(value as JsonSchema);
    for (const inner of Object.values(value)) collect(inner, visit);
  }
}

function refsIn(schema: unknown): unknown[] {
  const refs: unknown[] = [];
  collect(schema, (node) => {
    if ("$ref" in node) refs.push(node.$ref);
  });
  return refs;
}

const common = {
  $defs: {
    stepResponse: {
      type: "object",
      properties: {
        status: { type: "string", enum: ["in_progress", "completed"] },
        next_action: {
          type: "object",
          properties: {
            action: { type: "string", enum: ["continue", "complete", "closing"] },
            reason: { type: "string" },
          },
          required: ["action"],
        },
      },
      required: ["status"],
    },
  },
};

describe("SchemaResolver: finding the schema", () => {
  const file = {
    "initial.issue": { type: "object", properties: { a: { type: "string" } } },
    $defs: { fromDefs: { type: "string" }, "a/b~c": { type: "number" } },
    definitions: { fromDefinitions: { type: "boolean" } },
  };

  it.each([
    [
      "a top-level key",
      "initial.issue",
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
    ],
    ["a $defs name", "fromDefs", { type: "string" }],
    ["a definitions name", "fromDefinitions", { type: "boolean" }],
    ["a JSON pointer with ~0 and ~1 escapes", "#/$defs/a~1b~0c", { type: "number" }],
    ["a URI-encoded JSON pointer", "#/%24defs/fromDefs", { type: "string" }],
  ])("finds %s", async (_, schema, expected) => {
    const { resolver } = memoryResolver({ "issue.schema.json": file });
    expect(await resolver.resolve({ file: "issue.schema.json", schema })).toEqual(expected);
  });

  it("names the file and the schemas there when the name is unknown", async () => {
    const { resolver } = memoryResolver({ "issue.schema.json": file });
    const error = await resolutionError(
      resolver.resolve({ file: "issue.schema.json", schema: "complete.issue" }),
    );
    expect(error.fields.file).toBe(path.join(SCHEMAS_DIR, "issue.schema.json"));
    expect(error.message).toContain('"complete.issue"');
    expect(error.fields.found).toContain("initial.issue");
    expect(error.fields.found).toContain("fromDefs");
    expect(error.message).toContain(error.fields.found);
  });

  it("suggests the schema a misspelt name was meant to be", async () => {
    const { resolver } = memoryResolver({ "issue.schema.json": file });
    const error = await resolutionError(
      resolver.resolve({ file: "issue.schema.json", schema: "initial.isue" }),
    );
    expect(error.fields.fix).toBe('did you mean "initial.issue"?');
  });

  it("reports a missing schema file as not found", async () => {
    const { resolver } = memoryResolver({});
    const error = await resolutionError(
      resolver.resolve({ file: "nope.schema.json", schema: "x" }),
    );
    expect(error.code).toBe("not_found");
    expect(error.fields.file).toBe(path.join(SCHEMAS_DIR, "nope.schema.json"));
  });

  it("reports bad JSON with file, line and column", async () => {
    const { resolver } = memoryResolver({
      "bad.schema.json": '{\n  "a": {\n    "type": "object",\n  }\n}',
    });
    const error = await resolutionError(resolver.resolve({ file: "bad.schema.json", schema: "a" }));
    expect(error.code).toBe("parse_error");
    expect(error.fields.file).toBe(path.join(SCHEMAS_DIR, "bad.schema.json"));
    expect([error.fields.line, error.fields.column]).toEqual([3, 21]);
  });
});

describe("SchemaResolver: references", () => {
  it("inlines internal references, through $defs and definitions", async () => {
    const { resolver } = memoryResolver({
      "issue.schema.json": {
        step: {
          type: "object",
          properties: {
            context: { $ref: "#/$defs/issueContext" },
            tags: { $ref: "#/definitions/tags" },
          },
        },
        $defs: { issueContext: { type: "object", properties: { number: { type: "integer" } } } },
        definitions: { tags: { type: "array", items: { type: "string" } } },
      },
    });
    expect(await resolver.resolve({ file: "issue.schema.json", schema: "step" })).toEqual({
      type: "object",
      properties: {
        context: {
          type: "object",
          properties: { number: { type: "integer" } },
          additionalProperties: false,
        },
        tags: { type: "array", items: { type: "string" } },
      },
      additionalProperties: false,
    });
  });

  it("inlines external references relative to the referring file", async () => {
    const { resolver } = memoryResolver({
      "steps/issue.schema.json": { step: { $ref: "../shared/common.schema.json#/$defs/wrapper" } },
      "shared/common.schema.json": {
        $defs: {
          wrapper: {
            type: "object",
            properties: { inner: { $ref: "types.schema.json#/$defs/inner" } },
          },
        },
      },
      "shared/types.schema.json": { $defs: { inner: { type: "string", minLength: 1 } } },
    });
    expect(await resolver.resolve({ file: "steps/issue.schema.json", schema: "step" })).toEqual({
      type: "object",
      properties: { inner: { type: "string", minLength: 1 } },
      additionalProperties: false,
    });
  });

  it("lets keywords beside a $ref override the referenced schema", async () => {
    const { resolver } = memoryResolver({
      "a.json": {
        step: { $ref: "#/$defs/base", description: "own words" },
        $defs: { base: { type: "string", description: "base words" } },
      },
    });
    expect(await resolver.resolve({ file: "a.json", schema: "step" })).toEqual({
      type: "string",
      description: "own words",
    });
  });

  it("keeps data keywords verbatim, even when they look like references", async () => {
    const { resolver } = memoryResolver({
      "a.json": {
        step: {
          type: "object",
          properties: { $ref: { type: "string" } },
          default: { $ref: "#/nowhere" },
          enum: [{ $ref: "x" }],
        },
      },
    });
    const schema = await resolver.resolve({ file: "a.json", schema: "step" });
    expect(schema.default).toEqual({ $ref: "#/nowhere" });
    expect(schema.enum).toEqual([{ $ref: "x" }]);
    expect(schema.properties).toEqual({ $ref: { type: "string" } });
  });

  it("names the file and pointer of a reference that points nowhere", async () => {
    const { resolver } = memoryResolver({
      "issue.schema.json": {
        step: {
          type: "object",
          properties: { status: { $ref: "common.schema.json#/$defs/missing" } },
        },
      },
      "common.schema.json": common,
    });
    const error = await resolutionError(
      resolver.resolve({ file: "issue.schema.json", schema: "step" }),
    );
    expect(error.fields.file).toBe(path.join(SCHEMAS_DIR, "issue.schema.json"));
    expect(error.fields.jsonPath).toBe("/step/properties/status/$ref");
    expect(error.message).toContain("common.schema.json#/$defs/missing");
  });

  it("names the $ref, where it is and the missing file it names", async () => {
    const { resolver } = memoryResolver({ "a.json": { step: { $ref: "gone.json#/$defs/x" } } });
    const error = await resolutionError(resolver.resolve({ file: "a.json", schema: "step" }));
    expect(error.code).toBe("not_found");
    expect(error.fields.file).toBe(path.join(SCHEMAS_DIR, "a.json"));
    expect(error.fields.jsonPath).toBe("/step/$ref");
    expect(error.message).toContain("gone.json");
    expect(error.message).toContain("does not exist");
  });

  it.each([
    ["a $ref", { "a.json": { step: { $ref: "../../secret.json#/x" } } }, "a.json"],
    ["outputSchemaRef.file", {}, "../outside.json"],
  ])("refuses %s that leaves the schemas folder", async (_, files, file) => {
    const { resolver, reads } = memoryResolver(files);
    const error = await resolutionError(resolver.resolve({ file, schema: "step" }));
    expect(error.message).toContain("leaves the schemas folder");
    expect([...reads.keys()].filter((read) => !read.endsWith("a.json"))).toEqual([]);
  });

  it.each([
    ["a remote reference", "https://example.com/schema.json", "remote"],
    ["an anchor", "#issueContext", "not a JSON pointer"],
  ])("rejects %s", async (_, ref, message) => {
    const { resolver } = memoryResolver({ "a.json": { step: { $ref: ref } } });
    const error = await resolutionError(resolver.resolve({ file: "a.json", schema: "step" }));
    expect(error.message).toContain(message);
  });
});

describe("SchemaResolver: cycles", () => {
  it("names the cycle chain instead of hanging", async () => {
    const { resolver } = memoryResolver({
      "a.json": {
        $defs: {
          x: { type: "object", properties: { y: { $ref: "#/$defs/y" } } },
          y: { type: "array", items: { $ref: "#/$defs/x" } },
        },
      },
    });
    const error = await resolutionError(resolver.resolve({ file: "a.json", schema: "x" }));
    expect(error.message).toContain("a.json#/$defs/x → #/$defs/y → #/$defs/x");
  });

  it("names a cycle across files", async () => {
    const { resolver } = memoryResolver({
      "a.json": { $defs: { x: { $ref: "b.json#/$defs/y" } } },
      "b.json": { $defs: { y: { $ref: "a.json#/$defs/x" } } },
    });
    const error = await resolutionError(resolver.resolve({ file: "a.json", schema: "#/$defs/x" }));
    expect(error.message).toContain("a.json#/$defs/x → b.json#/$defs/y → a.json#/$defs/x");
  });

  it("names a schema that refers to itself", async () => {
    const { resolver } = memoryResolver({
      "a.json": { tree: { type: "object", properties: { child: { $ref: "#/tree" } } } },
    });
    const error = await resolutionError(resolver.resolve({ file: "a.json", schema: "tree" }));
    expect(error.message).toContain("a.json#/tree → #/tree");
  });
});

describe("SchemaResolver: allOf and additionalProperties", () => {
  it("merges allOf into one object schema where the step narrows the base", async () => {
    const { resolver } = memoryResolver({
      "common.schema.json": common,
      "issue.schema.json": {
        "complete.issue": {
          allOf: [
            { $ref: "common.schema.json#/$defs/stepResponse" },
            {
              properties: {
                next_action: { properties: { action: { enum: ["complete"] } } },
                summary: { type: "string" },
              },
              required: ["summary"],
            },
          ],
        },
      },
    });
    const schema = await resolver.resolve({ file: "issue.schema.json", schema: "complete.issue" });
    expect(schema).toEqual({
      type: "object",
      properties: {
        status: { type: "string", enum: ["in_progress", "completed"] },
        next_action: {
          type: "object",
          properties: {
            action: { type: "string", enum: ["complete"] },
            reason: { type: "string" },
          },
          required: ["action"],
          additionalProperties: false,
        },
        summary: { type: "string" },
      },
      required: ["status", "summary"],
      additionalProperties: false,
    });
  });

  it("lets the schema's own keywords win over its allOf parts", async () => {
    const { resolver } = memoryResolver({
      "a.json": {
        step: { allOf: [{ type: "object", title: "base" }, { title: "part" }], title: "own" },
      },
    });
    expect(await resolver.resolve({ file: "a.json", schema: "step" })).toMatchObject({
      title: "own",
      type: "object",
    });
  });

  it("adds additionalProperties: false to every object schema that sets none", async () => {
    const { resolver } = memoryResolver({
      "a.json": {
        step: {
          type: "object",
          properties: {
            list: {
              type: "array",
              items: { type: "object", properties: { a: { type: "string" } } },
            },
            either: { anyOf: [{ type: "object" }, { type: "string" }] },
            open: { type: "object", additionalProperties: true },
            map: { type: "object", additionalProperties: { type: "number" } },
            nullable: { type: ["object", "null"], properties: {} },
          },
        },
      },
    });
    const schema = await resolver.resolve({ file: "a.json", schema: "step" });
    expect(schema).toEqual({
      type: "object",
      properties: {
        list: {
          type: "array",
          items: {
            type: "object",
            properties: { a: { type: "string" } },
            additionalProperties: false,
          },
        },
        either: { anyOf: [{ type: "object", additionalProperties: false }, { type: "string" }] },
        open: { type: "object", additionalProperties: true },
        map: { type: "object", additionalProperties: { type: "number" } },
        nullable: { type: ["object", "null"], properties: {}, additionalProperties: false },
      },
      additionalProperties: false,
    });
  });
});

describe("SchemaResolver: cache", () => {
  it("reads and parses each file once per resolver", async () => {
    const { resolver, reads } = memoryResolver({
      "common.schema.json": common,
      "issue.schema.json": {
        "initial.issue": { $ref: "common.schema.json#/$defs/stepResponse" },
        "continuation.issue": { allOf: [{ $ref: "common.schema.json#/$defs/stepResponse" }] },
      },
    });
    await resolver.resolve({ file: "issue.schema.json", schema: "initial.issue" });
    await resolver.resolve({ file: "issue.schema.json", schema: "continuation.issue" });
    await resolver.resolve({ file: "common.schema.json", schema: "stepResponse" });
    expect([...reads.values()]).toEqual([1, 1]);
  });

  it("keeps answering from its cache after the file is gone", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "closer-schemas-"));
    try {
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, "issue.schema.json");
      await writeFile(
        file,
        JSON.stringify({ step: { type: "object" }, other: { type: "string" } }),
      );
      const resolver = new SchemaResolver(dir);
      const first = await resolver.resolve({ file: "issue.schema.json", schema: "step" });
      await rm(file);
      expect(await resolver.resolve({ file: "issue.schema.json", schema: "step" })).toEqual(first);
      expect(await resolver.resolve({ file: "issue.schema.json", schema: "other" })).toEqual({
        type: "string",
      });
      const fresh = new SchemaResolver(dir);
      expect(
        (await resolutionError(fresh.resolve({ file: "issue.schema.json", schema: "step" }))).code,
      ).toBe("not_found");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives each caller its own copy", async () => {
    const { resolver } = memoryResolver({
      "a.json": { step: { type: "object", properties: { a: { type: "string" } } } },
    });
    const first = await resolver.resolve({ file: "a.json", schema: "step" });
    (first.properties as Record<string, unknown>).a = "changed";
    const second = await resolver.resolve({ file: "a.json", schema: "step" });
    expect(second.properties).toEqual({ a: { type: "string" } });
  });
});

// ── Generated schemas ──────────────────────────────────────────────────────

/** A schema whose references point at any of `names` (or none when names is empty). */
function schemaArbitrary(names: readonly string[]): fc.Arbitrary<unknown> {
  const leaf = fc.constantFrom<unknown>(
    { type: "string" },
    { type: "integer", minimum: 0 },
    { type: "boolean" },
    { type: "string", enum: ["a", "b"] },
  );
  const reference =
    names.length > 0
      ? fc.constantFrom(...names).map((name) => ({ $ref: `#/$defs/${name}` }))
      : leaf;
  const { node } = fc.letrec<{ node: unknown; object: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      reference,
      tie("object"),
      fc.record({ type: fc.constant("array"), items: tie("node") }),
      fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      fc.record({
        allOf: fc.array(fc.oneof(reference, tie("object")), { minLength: 1, maxLength: 3 }),
      }),
    ),
    object: fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(
          fc.constantFrom("a", "b", "c", "status", "next_action"),
          tie("node"),
          { maxKeys: 3 },
        ),
        required: fc.subarray(["a", "b", "status"]),
      },
      { requiredKeys: ["properties"] },
    ),
  }));
  return node;
}

/** $defs d0…dn where di only refers to dj with j > i (acyclic), unless `cyclic`. */
function definitionsArbitrary(cyclic: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.integer({ min: 1, max: 5 }).chain((count) => {
    const names = Array.from({ length: count }, (_, index) => `d${index}`);
    return fc
      .tuple(...names.map((_, index) => schemaArbitrary(cyclic ? names : names.slice(index + 1))))
      .map((schemas) => Object.fromEntries(names.map((name, index) => [name, schemas[index]])));
  });
}

describe("SchemaResolver: properties", () => {
  it("leaves no $ref, closes every object schema, and is idempotent", async () => {
    await fc.assert(
      fc.asyncProperty(definitionsArbitrary(false), async (definitions) => {
        const { resolver } = memoryResolver({ "generated.json": { $defs: definitions } });
        for (const name of Object.keys(definitions)) {
          const resolved = await resolver.resolve({ file: "generated.json", schema: name });
          expect(refsIn(resolved)).toEqual([]);
          collect(resolved, (node) => {
            if (node.type === "object") expect(node).toHaveProperty("additionalProperties");
            expect(node).not.toHaveProperty("allOf");
          });
          const again = memoryResolver({ "resolved.json": { schema: resolved } }).resolver;
          expect(await again.resolve({ file: "resolved.json", schema: "schema" })).toEqual(
            resolved,
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  it("ends with a schema or a cycle error when references may loop", async () => {
    await fc.assert(
      fc.asyncProperty(definitionsArbitrary(true), async (definitions) => {
        const { resolver } = memoryResolver({ "generated.json": { $defs: definitions } });
        try {
          expect(refsIn(await resolver.resolve({ file: "generated.json", schema: "d0" }))).toEqual(
            [],
          );
        } catch (error) {
          expect(error).toBeInstanceOf(CloserError);
          expect((error as CloserError).message).toMatch(
            /^\$ref cycle: generated\.json#\/\$defs\/d\d/,
          );
        }
      }),
      { numRuns: 150 },
    );
  });
});
