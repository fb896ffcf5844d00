import { CloserError } from "../errors.js";
import type { ParsedTemplate } from "./parsed-template.js";

/** Turns Handlebars' `"x" not defined in [object Object] - 2:4` into a message a user can act on. */
export function translateHandlebarsError(
  error: unknown,
  parsed: ParsedTemplate,
  templatePath: string,
): CloserError {
  const message = error instanceof Error ? error.message : String(error);
  const undefinedName = /^"([^"]+)" not defined in /.exec(message)?.[1];
  const position = error as { lineNumber?: number; column?: number };
  if (undefinedName !== undefined) {
    const bodyLine = position.lineNumber ?? 1;
    const written = writtenPathAt(parsed.body, bodyLine, position.column) ?? undefinedName;
    return new CloserError(
      "config_error",
      `template uses variable "${written}" but no variable "${undefinedName}" was supplied`,
      {
        file: templatePath,
        line: bodyLine + parsed.bodyLineOffset,
        ...(position.column === undefined ? {} : { column: position.column + 1 }),
        expected: `a value for "${written}"`,
        found: "nothing",
        fix: `supply "${undefinedName}" (an agent parameter, a runner variable or an extracted param), or remove it from the template`,
        cause: error,
      },
    );
  }
  const unclosed = /got 'EOF'/.test(message) ? findUnclosedBlock(parsed.body) : undefined;
  const parseLine =
    unclosed?.line ??
    Number(/on line (\d+)/.exec(message)?.[1] ?? position.lineNumber ?? Number.NaN);
  const { problem, fix } = unclosed
    ? {
        problem: `{{#${unclosed.name}}} is never closed`,
        fix: `add {{/${unclosed.name}}} where the block ends`,
      }
    : explainSyntaxError(message);
  return new CloserError("parse_error", `template is not valid Handlebars: ${problem}`, {
    file: templatePath,
    ...(Number.isNaN(parseLine) ? {} : { line: parseLine + parsed.bodyLineOffset }),
    fix,
    detail: message,
    cause: error,
  });
}

/** The innermost block opened (`{{#each x}}`) and never closed, with its 1-based body line. */
function findUnclosedBlock(body: string): { name: string; line: number } | undefined {
  const open: { name: string; line: number }[] = [];
  for (const match of body.matchAll(/\{\{~?\s*([#^/])\s*([^\s}~]+)/g)) {
    const [, kind, name = ""] = match;
    if (kind === "/") open.pop();
    else open.push({ name, line: body.slice(0, match.index).split("\n").length });
  }
  return open.at(-1);
}

/** Handlebars' parser speaks in tokens (`got 'EOF'`); this says what the author wrote wrong. */
function explainSyntaxError(message: string): { problem: string; fix: string } {
  const got = /got '([^']+)'/.exec(message)?.[1];
  const expecting = /Expecting (.*), got/.exec(message)?.[1] ?? "";
  const mismatch = /^(\S+) doesn't match (\S+)/.exec(message);
  if (mismatch) {
    const [, opened, closed] = mismatch;
    return {
      problem: `{{#${opened}}} is closed with {{/${closed}}}`,
      fix: `close {{#${opened}}} with {{/${opened}}}`,
    };
  }
  if (got === "OPEN_ENDBLOCK") {
    return {
      problem: "a {{/block}} closes a block that was never opened",
      fix: "remove it, or open the block with {{#…}}",
    };
  }
  if (got === "INVALID") {
    return { problem: "a {{ is not closed with }}", fix: "end every {{name}} with }}" };
  }
  if (got === "CLOSE" && expecting.includes("'CLOSE_UNESCAPED'")) {
    return {
      problem: "a {{{ is closed with }} instead of }}}",
      fix: "write {{{name}}} or {{name}}",
    };
  }
  const firstLine = (message.split("\n")[0] ?? message)
    .replace(/ on line \d+:?$/, "")
    .replace(/ - \d+:\d+$/, "");
  return {
    problem: `${firstLine}${got === undefined ? "" : ` (unexpected ${got})`}`,
    fix: "fix the {{…}} syntax of the template (every {{ needs its }}, every {{#block}} its {{/block}})",
  };
}

/** The path expression written at a 1-based line and 0-based column of a template body. */
function writtenPathAt(body: string, line: number, column: number | undefined): string | undefined {
  if (column === undefined) return undefined;
  const text = body.split(/\r?\n/)[line - 1]?.slice(column);
  return /^[^\s}()~]+/.exec(text ?? "")?.[0];
}
