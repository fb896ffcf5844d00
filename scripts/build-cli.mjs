// Bundles the `closer` command into dist/bin/ (docs/cli.md#start-up): one
// entry, closer.js, and chunks that each command loads on first use, so a
// command reads a handful of files instead of hundreds. The library
// (dist/index.js, dist/testing/) stays tsc's output.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const OUT_DIR = "dist/bin";

/**
 * Left to Node's resolution at run time: the Claude Agent SDK and the sandbox
 * runtime find files of their own next to their code, Octokit is loaded only
 * for GitHub work, and ajv, ajv-formats and yaml are required on first use
 * (createRequire) by code that stays synchronous; bullmq and ioredis only by the
 * queue commands.
 */
const EXTERNAL = [
  "@anthropic-ai/*",
  "@octokit/*",
  "ai",
  "@ai-sdk/*",
  "ajv",
  "ajv-formats",
  "yaml",
  "bullmq",
  "ioredis",
];

// Bundled CommonJS (handlebars) calls require() for Node's own modules, which
// an ES module does not have: every file gets one.
const REQUIRE_BANNER = [
  'import { createRequire as __closerCreateRequire } from "node:module";',
  "const require = __closerCreateRequire(import.meta.url);",
].join("\n");

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

await rm(OUT_DIR, { recursive: true, force: true });
await build({
  entryPoints: { closer: "src/cli/main.ts" },
  outdir: OUT_DIR,
  // Chunks sit beside closer.js: code that reads ../../package.json from
  // import.meta.url finds it from any of them.
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  banner: { js: REQUIRE_BANNER },
  plugins: [englishZodMessagesOnly, handlebarsWithoutSourceMaps],
  logLevel: "warning",
});
