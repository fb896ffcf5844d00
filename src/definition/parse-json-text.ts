import { CloserError } from "../errors.js";

/** Where a JSON text first goes wrong: character offset and what is wrong there. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly message: string;
}

/**
 * Parses a JSON file's text. A syntax error becomes a CloserError naming the
 * file with the 1-based line and column of the problem.
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const problem = findJsonSyntaxError(body) ?? {
      offset: positionInMessage(error) ?? body.length,
      message: (error as Error).message,
    };
    const { line, column } = lineAndColumn(body, problem.offset);
    return throwParseError(file, problem.message, line, column, error);
  }
}

function throwParseError(
  file: string,
  message: string,
  line: number,
  column: number,
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
    for (;;) {
      if (isObject) this.scanMember();
      else this.scanValue();
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

  private scanMember(): void {
    this.skipWhitespace();
    const character = this.text[this.index];
    if (character === "/") this.fail("comments are not allowed in JSON");
    if (character !== '"') this.fail("expected a property name in double quotes");
    this.scanString();
    this.skipWhitespace();
    if (this.text[this.index] !== ":") this.fail("expected ':' after the property name");
    this.index++;
    this.scanValue();
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
