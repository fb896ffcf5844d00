/**
 * The documentation names the code it describes (`src/run/make-loop-ports.ts`,
 * `src/redecide/`); a file or folder it names must exist, so a move in src/
 * that leaves a document pointing at the old place fails here. Code blocks are
 * examples of a user's project, whose `src/` is not closer's.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `src/loop/run-loop.ts`, `src/redecide/`: a path under src/ ending in a file or a folder. */
const SOURCE_PATH = /\bsrc\/[A-Za-z0-9_./-]*(?:\.(?:ts|mjs|cjs|js)\b|\/)/g;

function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  return ["README.md", ...docs];
}

function missingPaths(): string[] {
  const missing: string[] = [];
  for (const document of documents()) {
    const lines = readFileSync(join(ROOT, document), "utf8").split(/\r?\n/);
    let inCode = false;
    lines.forEach((line, index) => {
      if (/^\s*```/.test(line)) inCode = !inCode;
      if (inCode) return;
      for (const [path] of line.matchAll(SOURCE_PATH)) {
        if (!existsSync(join(ROOT, path))) missing.push(`${document}:${index + 1}: ${path}`);
      }
    });
  }
  return missing;
}

describe("the source paths the documentation names", () => {
  it("finds some to check", () => {
    const named = documents().flatMap((document) => [
      ...readFileSync(join(ROOT, document), "utf8").matchAll(SOURCE_PATH),
    ]);
    expect(named.length).toBeGreaterThan(50);
  });

  it("every src/ file and folder named in docs/ and README.md exists", () => {
    expect(missingPaths()).toEqual([]);
  });
});
