import { CloserError } from "../errors.js";
import type { RunEvent } from "../ports/events.js";
import { HOOK_NAMES, type Plugin, PORT_NAMES } from "../ports/plugin.js";
import type { PluginFailure, PluginHost, PluginListing } from "../ports/plugin-host.js";
import { assertPlugins } from "./assert-plugins.js";
import { frozenCopy } from "./frozen-copy.js";
import { logEntryOf } from "./log-entry.js";

export function makePluginHost(plugins: readonly Plugin[]): PluginHost {
  assertPlugins(plugins);
  let report: (failure: PluginFailure) => void = () => {};
  /** A required plugin's failure seen outside a hook (a sink): ends the run at the next seam. */
  let pending: CloserError | undefined;
  const deliveries = new Map<Plugin, Promise<void>>();
  const switchedOff = new Set<Plugin>();

  const fail = (plugin: Plugin, where: string, error: unknown, endsRun = false): CloserError => {
    const message = error instanceof Error ? error.message : String(error);
    const required = plugin.required === true;
    report({ plugin: plugin.name, where, message, endsRun: endsRun || required });
    return new CloserError(
      "plugin_error",
      `plugin "${plugin.name}" failed in ${where}: ${message}`,
      {
        fix: required
          ? `fix the plugin, or give it without required: true so a failure of it does not end the run`
          : "fix the plugin",
      },
    );
  };

  const handOver = async (plugin: Plugin, event: RunEvent): Promise<void> => {
    const { recordSink, logger } = plugin.ports ?? {};
    let where = "ports.recordSink";
    try {
      await recordSink?.(frozenCopy(event));
      where = "ports.logger";
      const entry = logger && logEntryOf(event);
      if (entry !== undefined) await logger?.(frozenCopy(entry));
    } catch (error) {
      // A sink that failed gets nothing more: its own failure would be handed back to it.
      switchedOff.add(plugin);
      const failure = fail(plugin, where, error);
      if (plugin.required === true) pending ??= failure;
    }
  };

  return {
    plugins,
    listing: plugins.map(listingOf),
    reportTo(callback) {
      report = callback;
    },
    async call(hook, view) {
      if (pending !== undefined) throw pending;
      for (const plugin of plugins) {
        const run = plugin.hooks?.[hook] as ((view: unknown) => unknown) | undefined;
        if (run === undefined) continue;
        try {
          await run(frozenCopy(view));
        } catch (error) {
          const failure = fail(plugin, `hooks.${hook}`, error);
          if (plugin.required === true) throw failure;
        }
      }
    },
    deliver(event) {
      for (const plugin of plugins) {
        const { recordSink, logger } = plugin.ports ?? {};
        if ((recordSink === undefined && logger === undefined) || switchedOff.has(plugin)) continue;
        const before = deliveries.get(plugin) ?? Promise.resolve();
        deliveries.set(
          plugin,
          before.then(() => (switchedOff.has(plugin) ? undefined : handOver(plugin, event))),
        );
      }
    },
    async drain() {
      await Promise.all(deliveries.values());
    },
    fail,
  };
}

function listingOf(plugin: Plugin): PluginListing {
  return {
    name: plugin.name,
    required: plugin.required === true,
    hooks: HOOK_NAMES.filter((hook) => plugin.hooks?.[hook] !== undefined),
    ports: PORT_NAMES.filter((port) => plugin.ports?.[port] !== undefined),
  };
}
