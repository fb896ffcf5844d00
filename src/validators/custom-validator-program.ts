/**
 * The program a custom validator runs in: a `node` process of its own, so
 * `process.exit`, a crash or an endless loop in the module ends that process,
 * never closer (docs/completion.md#custom-validators). It is plain JavaScript
 * run with `node --input-type=module --eval`, the same from `dist/` and from
 * the TypeScript sources.
 *
 * It reads `{nonce, module, input}` as JSON on stdin, imports the module,
 * calls its function with `input` and an AbortSignal that aborts on SIGTERM,
 * and writes one JSON line with the nonce to fd 3, then exits. The module's
 * own output goes to stdout and stderr; a line on fd 3 without the nonce is
 * not a report. JSON, writeSync and process.exit are taken before the module
 * loads, so the module cannot change how the report is written.
 */
export const CUSTOM_VALIDATOR_PROGRAM = String.raw`
import { readFileSync, writeSync } from "node:fs";
import { pathToFileURL } from "node:url";

const stringify = JSON.stringify;
const exit = process.exit.bind(process);
const request = JSON.parse(readFileSync(0, "utf8"));
const controller = new AbortController();
// A module that only awaits its signal waits for the timeout, like any other.
setInterval(() => {}, 1 << 30);

process.once("SIGTERM", () => {
  controller.abort(new Error("the custom validator timed out or the run stopped"));
  setTimeout(() => exit(143), 500);
});

function messageOf(error) {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "an error that cannot be printed";
  }
}

function lineOf(fields) {
  try {
    return stringify({ nonce: request.nonce, ...fields });
  } catch (error) {
    return stringify({ nonce: request.nonce, kind: "unsendable", message: messageOf(error) });
  }
}

function report(fields) {
  let bytes = Buffer.from(lineOf(fields) + "\n");
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(3, bytes));
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
  exit(0);
}

let loaded;
try {
  loaded = await import(pathToFileURL(request.module).href);
} catch (error) {
  report({ kind: "load-failed", message: messageOf(error) });
}
const candidates = [loaded.default, loaded.validate, loaded.default?.validate];
const validate = candidates.find((candidate) => typeof candidate === "function");
if (validate === undefined) report({ kind: "no-function" });
let value;
try {
  value = await validate({ ...request.input, signal: controller.signal });
} catch (error) {
  report({ kind: "threw", message: messageOf(error) });
}
report({ kind: "returned", value });
`;

/** What the program reports on fd 3 (the nonce checked and removed). */
export type ProgramReport =
  | { readonly kind: "returned"; readonly value: unknown }
  | { readonly kind: "threw" | "load-failed" | "unsendable"; readonly message: string }
  | { readonly kind: "no-function" };

const KINDS = new Set(["returned", "threw", "load-failed", "unsendable", "no-function"]);

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === "object"
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The first report on fd 3 that carries the nonce; undefined when the program wrote none. */
export function readProgramReport(
  text: string | undefined,
  nonce: string,
): ProgramReport | undefined {
  for (const line of (text ?? "").split("\n")) {
    const fields = parseLine(line);
    if (fields?.nonce !== nonce || !KINDS.has(fields.kind as string)) continue;
    const { nonce: _nonce, ...report } = fields;
    if (report.kind !== "returned" && report.kind !== "no-function") {
      return { kind: report.kind as "threw", message: String(report.message ?? "") };
    }
    return report as ProgramReport;
  }
  return undefined;
}
