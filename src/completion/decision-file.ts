import { isPlainObject } from "../plain-object.js";
import type { ChannelReading } from "../ports/declaration.js";
import type { FileSnapshot } from "../ports/files.js";

interface FileContext {
  readonly checkId: string;
  readonly checkStartedAtMs: number;
}

const LEGACY_WORDS: Readonly<Record<string, "complete" | "incomplete">> = {
  PASS: "complete",
  COMPLETE: "complete",
  FAIL: "incomplete",
  INCOMPLETE: "incomplete",
};

/**
 * Reads the decision file (docs/completion.md#decision-file). A file that starts
 * with `{` is `file-json`; anything else is `file-legacy`. Returns a reading
 * for every file that exists: a stale or unreadable file is still a reading
 * (undecidable), so that a marker in the text cannot override it.
 */
export function readDecisionFile(file: FileSnapshot, context: FileContext): ChannelReading {
  if (file.refused !== undefined) {
    const { reason, detail } = file.refused;
    return { source: "file-json", decision: "undecidable", reason, detail };
  }
  const content = file.text.trim();
  return content.startsWith("{")
    ? readJsonFile(content, file, context)
    : readLegacyFile(content, file, context);
}

function readJsonFile(content: string, file: FileSnapshot, context: FileContext): ChannelReading {
  const parsed = parseJsonObject(content);
  if (typeof parsed === "string") {
    return (
      olderThanCheck("file-json", file, context) ?? {
        source: "file-json",
        decision: "undecidable",
        reason: "invalid-json",
        detail: parsed,
      }
    );
  }
  const checkId = readCheckId(parsed.check_id);
  if (checkId !== undefined && checkId !== context.checkId) {
    return {
      source: "file-json",
      decision: "undecidable",
      checkIdMatch: false,
      stale: true,
      reason: "check-id-mismatch",
      detail: `the decision file names check id "${checkId}", but this check is "${context.checkId}"`,
    };
  }
  if (checkId === undefined) {
    const stale = olderThanCheck("file-json", file, context);
    if (stale !== undefined) return stale;
  }
  return readDecisionWord(parsed, checkId === undefined ? {} : { checkIdMatch: true });
}

/** The `decision` (and `reasons`) of a JSON decision file that belongs to this check. */
function readDecisionWord(
  parsed: Record<string, unknown>,
  match: { checkIdMatch?: boolean },
): ChannelReading {
  const source = "file-json";
  const word = parsed.decision;
  if (word === undefined || word === null || word === "") {
    return {
      source,
      decision: "undecidable",
      ...match,
      reason: "missing-decision",
      detail: 'the decision file has no "decision" field',
    };
  }
  const decision = typeof word === "string" ? word.trim().toLowerCase() : "";
  if (decision !== "complete" && decision !== "incomplete" && decision !== "blocked") {
    return {
      source,
      decision: "undecidable",
      ...match,
      reason: "unknown-decision-word",
      detail: `the decision file says "decision": ${JSON.stringify(word)}, expected "complete", "incomplete" or "blocked"`,
    };
  }
  const reasons = stringArray(parsed.reasons);
  return {
    source,
    decision,
    ...match,
    ...(reasons.length > 0 ? { reasons } : {}),
    ...(decision === "blocked" ? { blockedReason: reasons.join("; ") || "no reason given" } : {}),
    detail: `decision file: ${decision}`,
  };
}

/** The parsed object, or why the text is not one. */
function parseJsonObject(content: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(content);
    return isPlainObject(value) ? value : "the decision file is JSON but not an object";
  } catch (error) {
    return `the decision file is not valid JSON: ${(error as Error).message}`;
  }
}

function readCheckId(value: unknown): string | undefined {
  return value === undefined || value === null || value === "" ? undefined : String(value);
}

function readLegacyFile(content: string, file: FileSnapshot, context: FileContext): ChannelReading {
  const source = "file-legacy";
  const stale = olderThanCheck(source, file, context);
  if (stale !== undefined) return stale;
  const lines = content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (lines.length === 0) {
    return {
      source,
      decision: "undecidable",
      reason: "empty-decision-file",
      detail: "the decision file is empty",
    };
  }
  let decision: "complete" | "incomplete" | undefined;
  for (const line of lines) decision = LEGACY_WORDS[line.toUpperCase()] ?? decision;
  if (decision === undefined) {
    return {
      source,
      decision: "undecidable",
      reason: "unknown-decision-word",
      detail: `the decision file holds no PASS, FAIL, COMPLETE or INCOMPLETE line (last line: ${JSON.stringify(cut(lines.at(-1) ?? ""))})`,
    };
  }
  return { source, decision, detail: `decision file: ${decision}` };
}

/** A file that carries no check id counts only when written after the check started. */
function olderThanCheck(
  source: "file-json" | "file-legacy",
  file: FileSnapshot,
  context: FileContext,
): ChannelReading | undefined {
  if (file.modifiedAtMs >= context.checkStartedAtMs) return undefined;
  return {
    source,
    decision: "undecidable",
    stale: true,
    reason: "file-older-than-check",
    detail: "the decision file has no check id and was written before this check started",
  };
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

function cut(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
