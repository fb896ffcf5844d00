import type { LoopPorts } from "../ports/loop-ports.js";
import type { Plugin } from "../ports/plugin.js";
import type { PluginHost } from "../ports/plugin-host.js";
import type { ValidatorOutcome } from "../ports/validator.js";

/**
 * The loop's ports with those the plugins replace (docs/plugins.md#ports): each plugin's port
 * gets the port it replaces as `next`. The run needs the answer of these ports, so a throw
 * of one ends the run with status `error` naming the plugin, required or not.
 */
export function withPluginPorts(ports: LoopPorts, host: PluginHost): LoopPorts {
  let { validatorRunner, promptResolver, retryPromptBuilder } = ports;
  for (const plugin of host.plugins) {
    const own = plugin.ports ?? {};
    if (own.validatorRunner !== undefined) {
      const [port, next] = [own.validatorRunner, validatorRunner];
      validatorRunner = answeredBy(host, plugin, "ports.validatorRunner", async (name, context) =>
        checkedOutcome(name, await port(name, context, next)),
      );
    }
    if (own.promptResolver !== undefined) {
      const [port, next] = [own.promptResolver, promptResolver];
      promptResolver = answeredBy(host, plugin, "ports.promptResolver", (request) =>
        port(request, next),
      );
    }
    if (own.retryPromptBuilder !== undefined) {
      const [port, next] = [own.retryPromptBuilder, retryPromptBuilder];
      retryPromptBuilder = answeredBy(host, plugin, "ports.retryPromptBuilder", (request) =>
        port(request, next),
      );
    }
  }
  return { ...ports, validatorRunner, promptResolver, retryPromptBuilder };
}

function answeredBy<Args extends unknown[], Answer>(
  host: PluginHost,
  plugin: Plugin,
  where: string,
  port: (...args: Args) => Promise<Answer>,
): (...args: Args) => Promise<Answer> {
  return async (...args) => {
    try {
      return await port(...args);
    } catch (error) {
      throw host.fail(plugin, where, error, true);
    }
  };
}

/** A plugin's outcome as the loop reads it: a verdict it can trust the type of, under the check's name. */
function checkedOutcome(name: string, outcome: ValidatorOutcome): ValidatorOutcome {
  if (typeof outcome?.valid !== "boolean") {
    throw new Error(`its outcome for "${name}" has no boolean \`valid\``);
  }
  return {
    ...outcome,
    validator: name,
    params: outcome.params ?? {},
    durationMs: outcome.durationMs ?? 0,
  };
}
