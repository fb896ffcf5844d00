import { CloserError } from "../errors.js";
import type { RunEvent } from "../events.js";
import { checkPlugins } from "./check-plugins.js";
import { frozenCopy } from "./frozen-copy.js";
import { logEntryOf } from "./log-entry.js";
import {
  HOOK_NAMES,
  type HookName,
  type HookView,
  type Plugin,
  PORT_NAMES,
  type PortName,
} from "./plugin.js";

/** A plugin that threw: what the `plugin-error` event says (docs/plugins.md#failures). */
export interface PluginFailure {
  readonly plugin: string;
  /** `hooks.<name>` or `ports.<name>`. */
  readonly where: string;
  readonly message: string;
  /** The run ends for it: a required plugin, or a port whose answer the run needed. */
  readonly endsRun: boolean;
}

/** A plugin as run-start's `plugins` event lists it. */
export interface PluginListing {
  readonly name: string;
  readonly required: boolean;
  readonly hooks: HookName[];
  readonly ports: PortName[];
}

/**
 * The one place plugins are called from (docs/plugins.md): hooks in the order the
 * plugins were given, each awaited; events handed to their sinks and loggers in order.
 * A throw is reported through `reportTo`'s callback; a required plugin's throw becomes a
 * `plugin_error` CloserError, which ends the run with status `error`.
 */
export interface PluginHost {
  readonly plugins: readonly Plugin[];
  readonly listing: readonly PluginListing[];
  /** Where failures go (the loop emits them as `plugin-error` events). */
  reportTo(report: (failure: PluginFailure) => void): void;
  /** Calls a hook of every plugin with a frozen copy of the view. */
  call<H extends HookName>(hook: H, view: HookView<H>): Promise<void>;
  /** Hands an event to every plugin's record sink and logger, without waiting. */
  deliver(event: RunEvent): void;
  /** Resolves once every event delivered so far was handed over; never rejects. */
  drain(): Promise<void>;
  /** Reports a plugin's failure and gives the error that ends the run when it must. */
  fail(plugin: Plugin, where: string, error: unknown, endsRun?: boolean): CloserError;
}

export function makePluginHost(plugins: readonly Plugin[]): PluginHost {
  checkPlugins(plugins);
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
