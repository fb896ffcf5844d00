import { fileURLToPath } from "node:url";
import { splitOutputLines } from "./output-lines.js";

/** One compiler diagnostic as a retry prompt needs it. */
export interface TypeCheckError {
  /** As the compiler printed it; empty for a diagnostic about no file (e.g. a bad tsconfig). */
  readonly file: string;
  /** 1-based; 0 when the compiler gave none. */
  readonly line: number;
  readonly column?: number;
  /** The compiler's code, e.g. `TS2322`. */
  readonly code?: string;
  /** The message, with its elaboration lines when the compiler printed some. */
  readonly message: string;
}

/** `src/a.ts(5,7): error TS2322: message` (tsc without --pretty). */
const TSC_PLAIN = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
/** `src/a.ts:5:7 - error TS2322: message` (tsc --pretty, color removed). */
const TSC_PRETTY = /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/;
/** `error TS5083: message`: about no file in particular. */
const TSC_GLOBAL = /^error (TS\d+): (.*)$/;
/** `TS2322 [ERROR]: message` (deno check), located by a later `at file:///…:5:7` line. */
const DENO_ERROR = /^(?:error: )?(TS\d+) \[ERROR\]: (.*)$/;
const DENO_LOCATION = /^\s+at (\S.*?):(\d+):(\d+)\s*$/;

function fileOfDenoLocation(location: string): string {
  if (!location.startsWith("file://")) return location;
  try {
    return fileURLToPath(location);
  } catch {
    return location;
  }
}

/** Indented lines right after a tsc diagnostic: the elaboration of its message. */
function readElaboration(lines: readonly string[], start: number): string[] {
  const elaboration: string[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (!/^\s{2,}\S/.test(line) || /^\s*\d+\s/.test(line)) break;
    elaboration.push(line.trim());
  }
  return elaboration;
}

function findDenoLocation(lines: readonly string[], start: number) {
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (DENO_ERROR.test(line)) break;
    const location = DENO_LOCATION.exec(line);
    if (location) {
      return {
        file: fileOfDenoLocation(location[1] as string),
        line: Number(location[2]),
        column: Number(location[3]),
      };
    }
  }
  return { file: "", line: 0 };
}

/** Errors from `tsc --noEmit` (plain or `--pretty`) and `deno check`. Never throws. */
export function parseTypeErrors(text: string): TypeCheckError[] {
  const lines = splitOutputLines(text);
  const errors: TypeCheckError[] = [];
  lines.forEach((line, index) => {
    const located = TSC_PLAIN.exec(line) ?? TSC_PRETTY.exec(line);
    if (located) {
      const message = [located[5] as string, ...readElaboration(lines, index)].join("\n");
      errors.push({
        file: located[1] as string,
        line: Number(located[2]),
        column: Number(located[3]),
        code: located[4] as string,
        message,
      });
      return;
    }
    const global = TSC_GLOBAL.exec(line);
    if (global) {
      errors.push({ file: "", line: 0, code: global[1] as string, message: global[2] as string });
      return;
    }
    const deno = DENO_ERROR.exec(line);
    if (deno) {
      const location = findDenoLocation(lines, index);
      errors.push({ ...location, code: deno[1] as string, message: deno[2] as string });
    }
  });
  return errors;
}
