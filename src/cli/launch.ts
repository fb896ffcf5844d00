/**
 * The `closer` command as shipped (docs/cli.md#code-cache): runs the command
 * bundle beside it from its code cache. scripts/build-cli.mjs builds it with
 * the bundle's id in place of CLOSER_BUNDLE_ID; from source, src/cli/main.ts
 * is the entry.
 */
import { fileURLToPath } from "node:url";
import { commandOf, runBundleWithCodeCache } from "./code-cache.js";
import { keepYoungGenerationSmall } from "./young-generation.js";

declare const CLOSER_BUNDLE_ID: string;

const command = commandOf(process.argv.slice(2));
// Before the bundle runs: its start is what grows the young generation.
keepYoungGenerationSmall(command);
runBundleWithCodeCache(fileURLToPath(new URL("./closer-core.cjs", import.meta.url)), {
  bundleId: CLOSER_BUNDLE_ID,
  command,
});
