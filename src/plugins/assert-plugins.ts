import { CloserError } from "../errors.js";
import { HOOK_NAMES, type Plugin, PORT_NAMES, type PortName } from "../ports/plugin.js";

/** Ports whose answer the run uses: one plugin at most may replace each (docs/plugins.md#ports). */
export const REPLACING_PORTS = [
  "validatorRunner",
  "promptResolver",
  "retryPromptBuilder",
] as const satisfies readonly PortName[];

/**
 * Refuses, before the run starts, plugins the run could not use as given: a missing or
 * repeated name, a hook or port closer does not know (a misspelt one would never be
 * called), one that is not a function, a port replaced by two plugins.
 */
export function assertPlugins(plugins: readonly Plugin[]): void {
  const names = new Set<string>();
  plugins.forEach((plugin, index) => {
    const where = `plugins[${index}]`;
    if (typeof plugin?.name !== "string" || plugin.name.trim() === "") {
      throw refusal(`${where} has no name`, where, 'give every plugin a name: { name: "…" }');
    }
    if (names.has(plugin.name)) {
      throw refusal(
        `two plugins are named "${plugin.name}"`,
        where,
        "give each plugin a name of its own",
      );
    }
    names.add(plugin.name);
    assertFunctions(plugin, "hooks", HOOK_NAMES);
    assertFunctions(plugin, "ports", PORT_NAMES);
  });
  for (const port of REPLACING_PORTS) {
    const replacing = plugins.filter((plugin) => plugin.ports?.[port] !== undefined);
    if (replacing.length > 1) {
      const both = replacing.map((plugin) => `"${plugin.name}"`).join(" and ");
      throw refusal(
        `plugins ${both} both replace the ${port} port`,
        `ports.${port}`,
        "let one plugin replace it; that plugin may call `next` for what it does not answer",
      );
    }
  }
}

function assertFunctions(plugin: Plugin, group: "hooks" | "ports", known: readonly string[]): void {
  const given: object = plugin[group] ?? {};
  for (const [key, value] of Object.entries(given)) {
    const where = `plugin "${plugin.name}": ${group}.${key}`;
    if (!known.includes(key)) {
      throw refusal(
        `${where} is not a ${group === "hooks" ? "hook" : "port"} closer knows`,
        `${group}.${key}`,
        `use one of ${known.join(", ")}`,
      );
    }
    if (value !== undefined && typeof value !== "function") {
      throw refusal(
        `${where} is not a function`,
        `${group}.${key}`,
        "give a function, or leave the key out",
      );
    }
  }
}

function refusal(message: string, jsonPath: string, fix: string): CloserError {
  return new CloserError("usage_error", message, { jsonPath, fix });
}
