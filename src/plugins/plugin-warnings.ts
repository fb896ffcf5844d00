import type { PluginListing } from "../ports/plugin-host.js";

/**
 * A run whose checks a plugin answers says so in its warnings (run.json, the result, a
 * `warning` event): its `completed` is that plugin's verdict, not the registry's validators'
 * (docs/plugins.md#integrity).
 */
export function pluginWarnings(listing: readonly PluginListing[]): string[] {
  return listing
    .filter((plugin) => plugin.ports.includes("validatorRunner"))
    .map(
      (plugin) =>
        `plugin "${plugin.name}" replaces the validator runner: the checks' verdicts are its own, not those of the registry's validators`,
    );
}
