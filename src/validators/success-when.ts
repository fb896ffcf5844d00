import type { SuccessWhen } from "../ports/registry.js";

export interface CommandFacts {
  readonly exitCode: number;
  readonly stdout: string;
}

/**
 * Whether the command passed. Only `exitCode:N` accepts a non-zero exit: the
 * rules on stdout judge a command that ran as the check expects, so a command
 * that failed with nothing printed (`git status` outside a repository) never
 * passes `empty` (docs/completion.md#success-when).
 */
export function isSuccess(rule: SuccessWhen, facts: CommandFacts): boolean {
  if (rule.kind !== "exitCode" && facts.exitCode !== 0) return false;
  switch (rule.kind) {
    case "empty":
      return facts.stdout.trim() === "";
    case "not-empty":
      return facts.stdout.trim() !== "";
    case "exitCode":
      return facts.exitCode === rule.code;
    case "contains":
      return facts.stdout.includes(rule.text);
    case "matches":
      return new RegExp(rule.regex, "m").test(facts.stdout);
  }
}
