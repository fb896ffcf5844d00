import type { Plugin } from "../ports/plugin.js";
import type { AgentResult } from "../ports/run-result.js";

export interface WebhookNotifierOptions {
  /** Where the summary is POSTed (a Slack incoming webhook, or any URL taking JSON). It is never logged. */
  readonly url: string;
  /** Default `webhook-notifier`. */
  readonly name?: string;
  /** True: a failed post ends the run with status `error` (docs/plugins.md#failures). Default false. */
  readonly required?: boolean;
  /** How long the post may take. Default 10 s. */
  readonly timeoutMs?: number;
}

/** The JSON the webhook gets: Slack shows `text`; other receivers read `run`. */
export interface WebhookSummary {
  readonly text: string;
  readonly run: {
    readonly runId: string;
    readonly status: AgentResult["status"];
    readonly success: boolean;
    readonly reason: string;
    readonly iterations: number;
    readonly costUsd: number;
    readonly refutedDeclarations: number;
    readonly warnings: number;
  };
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The example plugin of docs/plugins.md#example: when the run ends, POSTs a summary of it to a
 * webhook. A refused or failed post throws, so the run records it as the plugin's failure.
 */
export function webhookNotifier(options: WebhookNotifierOptions): Plugin {
  return {
    name: options.name ?? "webhook-notifier",
    ...(options.required === undefined ? {} : { required: options.required }),
    hooks: {
      async onEnd({ result }) {
        const response = await fetch(options.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(webhookSummary(result)),
          signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        });
        await response.body?.cancel();
        if (!response.ok)
          throw new Error(`the webhook answered ${response.status} ${response.statusText}`);
      },
    },
  };
}

export function webhookSummary(result: AgentResult): WebhookSummary {
  const reason = result.reason.split("\n")[0] ?? "";
  const mark = result.success ? "✅" : "❌";
  return {
    text: `${mark} closer run ${result.runId}: ${result.status} after ${result.iterations} iteration(s), $${result.costUsd.toFixed(4)} — ${reason}`,
    run: {
      runId: result.runId,
      status: result.status,
      success: result.success,
      reason,
      iterations: result.iterations,
      costUsd: result.costUsd,
      refutedDeclarations: result.refutedDeclarations,
      warnings: result.warnings.length,
    },
  };
}
