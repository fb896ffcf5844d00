/**
 * The layers of src/, lowest first (docs/architecture.md#layers): a module imports
 * only from its own layer's folder and the layers below it, type imports included,
 * and no import cycle exists between files. `npm run lint` runs this check.
 */
const LAYERS = [
  // Leaves: import nothing of the product.
  "errors.ts",
  "plain-object.ts",
  "bounded-text.ts",
  "json-values.ts",
  "import-module.ts",
  "optional-packages.ts",
  // The shared words: imports only itself and errors.ts.
  "ports/",
  // Readers of what tools print, for the validators and the guards alike.
  "tool-output/",
  "definition/",
  // The edges to the OS: processes, then git and the working tree.
  "process/",
  // The model's credentials: closer's key proxy and the backends' per-run state folders.
  "credentials/",
  "workspace/",
  "record/",
  "prompts/",
  "completion/",
  "retry/",
  "validators/",
  "integrity/",
  "github/",
  "sandbox/",
  "backends/",
  "plugins/",
  "loop/",
  "lint/",
  // The composition root: builds the loop's ports and runs it.
  "run/",
  "observe/",
  "redecide/",
  "queue/",
  "import/",
  "cli/",
  "testing/",
  "index.ts",
];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const pathOf = (layer) => `^src/${escapeRegExp(layer)}${layer.endsWith("/") ? "" : "$"}`;
const anyOf = (layers) => layers.map(pathOf).join("|");
const notATest = "\\.test\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "A file reaches itself through its imports: move the shared part down a layer.",
      severity: "error",
      from: { path: "^src/", pathNot: notATest },
      to: { circular: true },
    },
    {
      name: "unplaced-module",
      comment:
        "A folder or top-level file of src/ that is not in the layer order: add it to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md#layers.",
      severity: "error",
      from: { path: "^src/", pathNot: `${anyOf(LAYERS)}|${notATest}` },
      to: {},
    },
    {
      name: "import-of-unplaced",
      comment:
        "An import of a folder or top-level file of src/ that is not in the layer order: add it to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md#layers.",
      severity: "error",
      from: { path: "^src/", pathNot: notATest },
      to: { path: "^src/", pathNot: `${anyOf(LAYERS)}|${notATest}` },
    },
    ...LAYERS.slice(0, -1).map((layer, index) => ({
      name: `below-${layer.replace(/[/.]/g, (c) => (c === "/" ? "" : "-"))}`,
      comment: `${layer} imports only what is below it (docs/architecture.md#layers): move the shared part down, or pass it in from above.`,
      severity: "error",
      from: { path: pathOf(layer), pathNot: notATest },
      to: { path: anyOf(LAYERS.slice(index + 1)) },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
