import { CloserError } from "../errors.js";
import { formatJsonPath } from "./json-path.js";

/** Where a JSON text first goes wrong: character offset and what is wrong there. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly message: string;
}

/** A key given twice in one object: JSON.parse would silently keep only the last value. */
export interface JsonDuplicateKey {
  readonly key: string;
  /** Path of the second occurrence, e.g. `["steps", "initial.issue", "next"]`. */
  readonly path: readonly (string | number)[];
  readonly firstOffset: number;
  readonly offset: number;
}

/**
 * Parses a JSON file's text. A syntax error becomes a CloserError naming the
 * file with the 1-based line and column of the problem; so does a duplicate key.
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const problem = findJsonSyntaxError(body) ?? {
      offset: positionInMessage(error) ?? body.length,
      message: (error as Error).message,
    };
    const at = lineAndColumn(body, problem.offset);
    return throwParseError(file, { message: problem.message, ...at }, error);
  }
  const duplicate = findDuplicateKey(body);
  if (duplicate !== undefined) throwDuplicateKey(file, body, duplicate);
  return value;
}

function throwDuplicateKey(file: string, body: string, duplicate: JsonDuplicateKey): never {
  const { line, column } = lineAndColumn(body, duplicate.offset);
  const first = lineAndColumn(body, duplicate.firstOffset);
  const key = JSON.stringify(duplicate.key);
  throw new CloserError("parse_error", `duplicate key ${key}: only its last value would count`, {
    file,
    jsonPath: formatJsonPath(duplicate.path),
    line,
    column,
    found: `${key} at line ${first.line} and at line ${line}`,
    fix: `keep one of the two ${key} keys (lines ${first.line} and ${line})`,
  });
}

function throwParseError(
  file: string,
  { message, line, column }: { message: string; line: number; column: number },
  cause: unknown,
): never {
  throw new CloserError("parse_error", `invalid JSON: ${message}`, {
    file,
    line,
    column,
    fix: `fix the JSON syntax at line ${line}, column ${column}`,
    cause,
  });
}

function positionInMessage(error: unknown): number | undefined {
  const match = /at position (\d+)/.exec(String((error as Error).message));
  return match ? Number(match[1]) : undefined;
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text[index] === "\n") {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds the first syntax error with a message people understand (V8 does not
 * always say where the error is). Returns undefined when the text is valid JSON.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const scanner = new JsonScanner(text);
  try {
    scanner.scanDocument();
    return undefined;
  } catch (problem) {
    if (problem instanceof ScanFailure) return { offset: problem.offset, message: problem.message };
    throw problem;
  }
}

/** The first key given twice in one object of a valid JSON text, if any. */
export function findDuplicateKey(text: string): JsonDuplicateKey | undefined {
  const scanner = new JsonScanner(text);
  scanner.scanDocument();
  return scanner.duplicate;
}

class ScanFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const NUMBER_SOURCE = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";

class JsonScanner {
  private index = 0;
  private readonly numberPattern = new RegExp(NUMBER_SOURCE, "y");
  /** Keys and indexes leading to the value being scanned. */
  private readonly path: (string | number)[] = [];
  duplicate: JsonDuplicateKey | undefined;

  constructor(private readonly text: string) {}

  scanDocument(): void {
    this.scanValue();
    this.skipWhitespace();
    if (this.index < this.text.length) this.fail("unexpected text after the end of the JSON value");
  }

  private fail(message: string, offset = this.index): never {
    throw new ScanFailure(offset, message);
  }

  private skipWhitespace(): void {
    while (" \t\n\r".includes(this.text[this.index] ?? "x")) this.index++;
  }

  private scanValue(): void {
    this.skipWhitespace();
    const character = this.text[this.index];
    if (character === undefined) this.fail("unexpected end of file");
    if (character === "{" || character === "[") {
      this.scanContainer(character === "{" ? "}" : "]");
    } else if (character === '"') {
      this.scanString();
    } else if (character === "-" || (character >= "0" && character <= "9")) {
      this.scanNumber();
    } else {
      this.scanLiteral(character);
    }
  }

  private scanLiteral(character: string): void {
    const literal = ["true", "false", "null"].find((word) =>
      this.text.startsWith(word, this.index),
    );
    if (literal !== undefined) {
      this.index += literal.length;
      return;
    }
    if (character === "/") this.fail("comments are not allowed in JSON");
    if (character === "'") this.fail("strings must be in double quotes");
    this.fail(`unexpected character ${JSON.stringify(character)}`);
  }

  private scanContainer(close: "}" | "]"): void {
    const isObject = close === "}";
    this.index++;
    this.skipWhitespace();
    if (this.text[this.index] === close) {
      this.index++;
      return;
    }
    const keys = new Map<string, number>();
    for (let index = 0; ; index++) {
      if (isObject) this.scanMember(keys);
      else this.scanElement(index);
      this.skipWhitespace();
      const character = this.text[this.index];
      if (character === close) {
        this.index++;
        return;
      }
      if (character !== ",") {
        this.fail(
          character === undefined
            ? `unexpected end of file: missing '${close}'`
            : `expected ',' or '${close}' after ${isObject ? "a property value" : "an array element"}`,
        );
      }
      const comma = this.index;
      this.index++;
      this.skipWhitespace();
      if (this.text[this.index] === close)
        this.fail("trailing comma is not allowed in JSON", comma);
    }
  }

  private scanElement(index: number): void {
    this.path.push(index);
    this.scanValue();
    this.path.pop();
  }

  private scanMember(keys: Map<string, number>): void {
    this.skipWhitespace();
    const character = this.text[this.index];
    if (character === "/") this.fail("comments are not allowed in JSON");
    if (character !== '"') this.fail("expected a property name in double quotes");
    const start = this.index;
    this.scanString();
    const key = JSON.parse(this.text.slice(start, this.index)) as string;
    const firstOffset = keys.get(key);
    if (firstOffset === undefined) keys.set(key, start);
    else this.duplicate ??= { key, path: [...this.path, key], firstOffset, offset: start };
    this.skipWhitespace();
    if (this.text[this.index] !== ":") this.fail("expected ':' after the property name");
    this.index++;
    this.path.push(key);
    this.scanValue();
    this.path.pop();
  }

  private scanString(): void {
    const start = this.index;
    this.index++;
    for (;;) {
      const character = this.text[this.index];
      if (character === undefined || character === "\n") {
        this.fail("unterminated string: the closing quote is missing", start);
      }
      if (character === '"') {
        this.index++;
        return;
      }
      if (character < " ") this.fail("control character in a string (write \\n, \\t, …)");
      if (character === "\\") this.scanEscape();
      else this.index++;
    }
  }

  private scanEscape(): void {
    const escaped = this.text[this.index + 1] ?? "";
    if (
      escaped === "u" &&
      /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.index + 2, this.index + 6))
    ) {
      this.index += 6;
      return;
    }
    if (escaped !== "u" && escaped !== "" && '"\\/bfnrt'.includes(escaped)) {
      this.index += 2;
      return;
    }
    this.fail("invalid escape sequence in a string");
  }

  private scanNumber(): void {
    this.numberPattern.lastIndex = this.index;
    const match = this.numberPattern.exec(this.text);
    if (!match || match[0] === "-") this.fail("invalid number");
    this.index += match[0].length;
  }
}
