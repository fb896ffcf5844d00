import type { SuccessWhen } from "../ports/registry.js";

/** The `successWhen` grammar: `empty`, `not-empty`, `exitCode:N`, `contains:TEXT`, `matches:REGEX`. */
export const SUCCESS_WHEN_GRAMMAR =
  "empty | not-empty | exitCode:N | contains:TEXT | matches:REGEX";

export type ParsedSuccessWhen = { ok: true; value: SuccessWhen } | { ok: false; error: string };

export function parseSuccessWhen(text: string): ParsedSuccessWhen {
  if (text === "empty") return { ok: true, value: { kind: "empty" } };
  if (text === "not-empty") return { ok: true, value: { kind: "not-empty" } };
  const colon = text.indexOf(":");
  const head = colon === -1 ? text : text.slice(0, colon);
  const rest = colon === -1 ? "" : text.slice(colon + 1);
  if (head === "exitCode" && /^\d+$/.test(rest)) {
    return { ok: true, value: { kind: "exitCode", code: Number(rest) } };
  }
  if (head === "contains" && rest.length > 0)
    return { ok: true, value: { kind: "contains", text: rest } };
  if (head === "matches" && rest.length > 0) {
    try {
      new RegExp(rest);
    } catch (error) {
      return {
        ok: false,
        error: `invalid regular expression "${rest}": ${(error as Error).message}`,
      };
    }
    return { ok: true, value: { kind: "matches", regex: rest } };
  }
  return {
    ok: false,
    error: `"${text}" is not a successWhen rule (expected ${SUCCESS_WHEN_GRAMMAR})`,
  };
}
