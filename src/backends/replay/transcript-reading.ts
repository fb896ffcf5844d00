/**
 * What a recorded transcript is read into (see transcript-turn.ts): the
 * answer as the backend gave it, and the file changes that can be re-applied.
 */
import path from "node:path";
import type { FileEdit } from "./session.js";

/** The answer read so far, message by message. */
export interface Reading {
  text?: string;
  /** The answer in the step's schema as the transcript holds it; the backend may have refused it. */
  structuredOutput?: unknown;
  toolsUsed: string[];
  /** The structured output, when there is one, is the final text as JSON. */
  jsonText: boolean;
  /** The answer was asked in a strict schema: its nulls stand for absent optional properties. */
  strictSchema: boolean;
  /** The backend refused the structured output it got (`structured_output_invalid`). */
  refused: boolean;
  /** opencode: the texts of each message, the latest message last. */
  readonly textsByMessage: Map<string, string[]>;
}

export function emptyReading(): Reading {
  return {
    toolsUsed: [],
    jsonText: false,
    strictSchema: false,
    refused: false,
    textsByMessage: new Map(),
  };
}

/** Collects a turn's file changes as whole files plus edits, relative to the recorded tree. */
export class ChangeCollector {
  readonly files: Record<string, string | null> = {};
  readonly edits: FileEdit[] = [];

  constructor(private readonly recordedCwd: string) {}

  write(file: unknown, content: unknown): void {
    const relative = this.relative(file);
    if (relative === undefined || typeof content !== "string") return;
    this.files[relative] = content;
    // Edits before a whole-file write are overwritten by it.
    for (let index = this.edits.length - 1; index >= 0; index--) {
      if (this.edits[index]?.path === relative) this.edits.splice(index, 1);
    }
  }

  edit(file: unknown, oldText: unknown, newText: unknown, replaceAll: unknown): void {
    const relative = this.relative(file);
    if (relative === undefined || typeof oldText !== "string" || typeof newText !== "string")
      return;
    if (oldText === "") {
      this.write(file, newText);
      return;
    }
    const written = this.files[relative];
    if (typeof written === "string") {
      this.files[relative] =
        replaceAll === true
          ? written.split(oldText).join(newText)
          : written.replace(oldText, () => newText);
      return;
    }
    this.edits.push({
      path: relative,
      oldText,
      newText,
      ...(replaceAll === true ? { replaceAll: true } : {}),
    });
  }

  private relative(file: unknown): string | undefined {
    if (typeof file !== "string" || file === "") return undefined;
    const relative = path.isAbsolute(file)
      ? path.relative(this.recordedCwd, file)
      : path.normalize(file);
    // Changes outside the recorded working tree (scratch files) are not replayed.
    if (
      relative === "" ||
      relative === ".." ||
      relative.startsWith(`..${path.sep}`) ||
      path.isAbsolute(relative)
    ) {
      return undefined;
    }
    return relative;
  }
}
