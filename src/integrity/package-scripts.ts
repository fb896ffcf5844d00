/**
 * The package.json scripts a check runs: `test` always (with its `pre`/`post`
 * hooks), and every script a validator's command names through npm, yarn,
 * pnpm or bun (docs/integrity.md#protected-paths).
 */
export function scriptsRunBy(commands: readonly string[]): string[] {
  const names = new Set<string>(["test"]);
  for (const command of commands) {
    for (const name of namedScripts(command)) names.add(name);
  }
  return [...names].flatMap((name) => [name, `pre${name}`, `post${name}`]).sort();
}

const RUN_SCRIPT = /\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)([A-Za-z0-9:_.-]+)/g;
const SHORTHAND = /\b(?:npm|pnpm|yarn)\s+(test|t|tst|start|stop|restart)\b/g;
const YARN_SCRIPT = /\byarn\s+(?!run\b|add\b|install\b|remove\b|dlx\b|exec\b)([A-Za-z0-9:_.-]+)/g;

function namedScripts(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(RUN_SCRIPT)) found.push(match[1] ?? "");
  for (const match of command.matchAll(SHORTHAND)) {
    const word = match[1] ?? "";
    found.push(word === "t" || word === "tst" ? "test" : word);
  }
  for (const match of command.matchAll(YARN_SCRIPT)) found.push(match[1] ?? "");
  return found.filter((name) => name !== "");
}
