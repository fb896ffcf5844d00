/** Command-line parsing of the fake Claude Code: `--flag=value`, `--flag value` and booleans. */

const BOOLEAN_FLAGS = new Set([
  "--verbose",
  "--print",
  "-p",
  "--continue",
  "-c",
  "--allow-dangerously-skip-permissions",
  "--dangerously-skip-permissions",
  "--include-partial-messages",
  "--include-hook-events",
  "--strict-mcp-config",
  "--fork-session",
  "--debug",
  "--await-initialize",
  "--no-session-persistence",
]);

/** @param {string[]} argv */
export function parseArguments(argv) {
  /** @type {Record<string, string | true>} */
  const flags = {};
  /** @type {string[]} */
  const positionals = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (!argument.startsWith("-") || argument === "-") {
      positionals.push(argument);
      continue;
    }
    const equals = argument.indexOf("=");
    if (equals > 0) {
      flags[argument.slice(0, equals)] = argument.slice(equals + 1);
    } else if (BOOLEAN_FLAGS.has(argument) || index + 1 >= argv.length) {
      flags[argument] = true;
    } else {
      flags[argument] = argv[index + 1] ?? "";
      index++;
    }
  }
  return { flags, positionals };
}

/**
 * Tool lists as Claude Code reads them: separated by commas or spaces, except
 * inside a rule's parentheses (`Bash(npm test:*)`).
 * @param {string | true | undefined} value
 */
function list(value) {
  if (value === undefined || value === true) return undefined;
  const items = [];
  let item = "";
  let depth = 0;
  for (const character of value) {
    if (character === "(") depth++;
    if (character === ")") depth--;
    if (depth === 0 && /[,\s]/.test(character)) {
      items.push(item);
      item = "";
    } else {
      item += character;
    }
  }
  items.push(item);
  return items.map((entry) => entry.trim()).filter(Boolean);
}

/** @param {string | true | undefined} value */
function text(value) {
  return typeof value === "string" ? value : undefined;
}

/**
 * The options a test wants to assert, read from the flags the SDK (or a CLI backend) passed.
 * @param {{ flags: Record<string, string | true> }} parsed
 */
export function readOptions({ flags }) {
  const jsonSchema = text(flags["--json-schema"]);
  const maxTurns = text(flags["--max-turns"]);
  return {
    print: flags["--print"] === true || flags["-p"] === true,
    inputFormat: text(flags["--input-format"]) ?? "text",
    outputFormat: text(flags["--output-format"]) ?? "text",
    model: text(flags["--model"]),
    resume: text(flags["--resume"]) ?? text(flags["-r"]),
    jsonSchema: jsonSchema === undefined ? undefined : JSON.parse(jsonSchema),
    allowedTools: list(flags["--allowedTools"] ?? flags["--allowed-tools"]) ?? [],
    disallowedTools: list(flags["--disallowedTools"] ?? flags["--disallowed-tools"]) ?? [],
    permissionMode:
      flags["--dangerously-skip-permissions"] === true
        ? "bypassPermissions"
        : (text(flags["--permission-mode"]) ?? "default"),
    permissionPromptTool: text(flags["--permission-prompt-tool"]),
    settingSources:
      flags["--setting-sources"] === undefined
        ? undefined
        : (list(flags["--setting-sources"]) ?? []),
    maxTurns: maxTurns === undefined ? undefined : Number(maxTurns),
    appendSystemPrompt: text(flags["--append-system-prompt"]),
    systemPrompt: text(flags["--system-prompt"]),
  };
}
