import type { CloserError } from "../errors.js";
import type { RunEvent } from "./events.js";
import type { HookName, HookView, Plugin, PortName } from "./plugin.js";

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
