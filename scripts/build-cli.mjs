// Bundles the `closer` command into dist/bin/ (docs/cli.md#start-up): the
// command bundle, closer-core.cjs, one CommonJS file a command runs from its
// V8 code cache (docs/cli.md#code-cache), and closer.js, the small entry
// that loads it with that cache. The library (dist/index.js, dist/testing/)
// stays tsc's output.
import { createHash } from "node:crypto";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";

const OUT_DIR = "dist/bin";

/**
 * Left to Node's resolution at run time: the Claude Agent SDK and the sandbox
 * runtime find files of their own next to their code; ajv, ajv-formats and
 * yaml are required on first use (createRequire) by code that stays
 * synchronous; the AI SDK (CommonJS builds), BullMQ and ioredis are loaded by
 * the paths that use them, and @octokit/webhooks by `closer serve` alone.
 * Octokit's REST and GraphQL clients, ES modules only, are inside the bundle:
 * CommonJS could load them only through require(esm).
 */
const EXTERNAL = [
  "@anthropic-ai/*",
  "ai",
  "@ai-sdk/*",
  "ajv",
  "ajv-formats",
  "yaml",
  "bullmq",
  "ioredis",
  "@octokit/webhooks",
];

/**
 * The bundle is CommonJS, which has no `import.meta`: its one use, the URL of
 * the running file (to find package.json, the schemas, a require() base),
 * becomes the bundle's own file URL.
 */
const IMPORT_META_URL = "__closerBundleUrl";
/** The parameter the entry hands the bundle its `import()` in (src/cli/code-cache.ts). */
const IMPORT_MODULE = "__closerImportModule";
// First, so closer's code stays in strict mode as ES modules are (a directive after it would not count).
const IMPORT_META_URL_BANNER = `"use strict";\nvar ${IMPORT_META_URL} = require("node:url").pathToFileURL(__filename).href;`;

/**
 * zod's classic API re-exports every locale's messages (`z.locales`), half of
 * zod's code, which closer never reads: it keeps the English messages zod
 * configures itself with and leaves the others out.
 */
const englishZodMessagesOnly = {
  name: "english-zod-messages-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? { path: "zod-english-locale", namespace: "closer-zod", pluginData: args.resolveDir }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "closer-zod" }, (args) => ({
      contents: 'export { default as en } from "../locales/en.js";',
      resolveDir: args.pluginData,
      loader: "js",
    }));
  },
};

/**
 * Handlebars loads the source-map library to map compiled templates back to
 * their source, which it does only when given a `srcName`; closer never gives
 * one. Without the library Handlebars uses its own stand-in (as in a browser).
 */
const handlebarsWithoutSourceMaps = {
  name: "handlebars-without-source-maps",
  setup(build) {
    build.onResolve({ filter: /^source-map$/ }, (args) =>
      /[\\/]handlebars[\\/]/.test(args.importer)
        ? { path: "source-map", namespace: "closer-no-source-map" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "closer-no-source-map" }, () => ({
      contents: "module.exports = {};",
      loader: "js",
    }));
  },
};

/**
 * The bundle runs through `node:vm` (src/cli/code-cache.ts), where Node 20
 * resolves no `import()`: closer's one `import()` of a package outside the
 * bundle (src/import-module.ts) calls the one its entry hands the bundle.
 */
const importThroughTheEntry = {
  name: "import-through-the-entry",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]import-module\.ts$/ }, () => ({
      contents: `export const importModule = (specifier) => ${IMPORT_MODULE}(specifier);`,
      loader: "js",
    }));
  },
};

/** Names the `import()` calls left in the bundle, which could not run there. */
function assertNoDynamicImport(metafile) {
  const left = Object.values(metafile.outputs).flatMap((output) =>
    output.imports.filter((item) => item.kind === "dynamic-import").map((item) => item.path),
  );
  if (left.length > 0) {
    throw new Error(
      `import() left in the bundle: ${left.join(", ")} (use importModule, src/import-module.ts)`,
    );
  }
}

/**
 * The text with every character outside ASCII written as a `\\u` escape, which
 * means the same character in a string, a template, a regular expression, an
 * identifier and a comment; esbuild leaves some in regular expressions and
 * comments. The entry reads an ASCII bundle without decoding it
 * (src/cli/code-cache.ts).
 */
function asciiOnly(text) {
  // `\✓` (an escaped character) would become `\\u2713`, which means something else.
  const escaped = /\\[^\0-\x7f]/.exec(text);
  if (escaped !== null)
    throw new Error(`cannot write the bundle in ASCII: ${escaped[0]} at ${escaped.index}`);
  return text.replace(/[^\0-\x7f]/g, (character) => {
    const code = character.charCodeAt(0);
    return `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

await rm(OUT_DIR, { recursive: true, force: true });
const core = await build({
  entryPoints: { "closer-core": "src/cli/main.ts" },
  outdir: OUT_DIR,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  define: { "import.meta.url": IMPORT_META_URL },
  banner: { js: IMPORT_META_URL_BANNER },
  plugins: [englishZodMessagesOnly, handlebarsWithoutSourceMaps, importThroughTheEntry],
  metafile: true,
  logLevel: "warning",
});
assertNoDynamicImport(core.metafile);

// The entry names the bundle by its content: a cache made for another build is never read.
const bundle = asciiOnly(await readFile(`${OUT_DIR}/closer-core.cjs`, "utf8"));
await writeFile(`${OUT_DIR}/closer-core.cjs`, bundle);
const bundleId = createHash("sha256").update(bundle).digest("hex").slice(0, 16);
await build({
  entryPoints: { closer: "src/cli/launch.ts" },
  outdir: OUT_DIR,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  define: { "import.meta.url": IMPORT_META_URL, CLOSER_BUNDLE_ID: JSON.stringify(bundleId) },
  banner: { js: `#!/usr/bin/env node\n${IMPORT_META_URL_BANNER}` },
  logLevel: "warning",
});
await chmod(`${OUT_DIR}/closer.js`, 0o755);
// The package is ES modules; the files of dist/bin are CommonJS, which starts
// without Node's ES module loader (a few milliseconds of every command).
await writeFile(`${OUT_DIR}/package.json`, `${JSON.stringify({ type: "commonjs" })}\n`);
