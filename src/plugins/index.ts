/** Plugins of a run (docs/plugins.md): the interface, and the example that ships with closer. */
export type {
  CheckedView,
  ChecksView,
  EndView,
  Hook,
  HookName,
  HookView,
  LogEntry,
  Logger,
  Plugin,
  PluginHooks,
  PluginPorts,
  PortName,
  QueryView,
  ResponseView,
  RetryView,
} from "../ports/plugin.js";

export type { RetryPromptBuilder } from "../ports/prompts.js";
export {
  type WebhookNotifierOptions,
  type WebhookSummary,
  webhookNotifier,
  webhookSummary,
} from "./webhook-notifier.js";
