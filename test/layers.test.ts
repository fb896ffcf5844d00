/**
 * The layer order of docs/architecture.md#layers is held by `npm run lint`
 * (dependency-cruiser with .dependency-cruiser.cjs): src/ keeps it, and an
 * import pointing up a layer, a type import included, an import cycle or a
 * folder left out of the order fails the lint step.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

interface Cruise {
  readonly code: number;
  readonly output: string;
}

async function cruise(cwd: string): Promise<Cruise> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, ["src", "--config", CONFIG], { cwd });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
  }
}

const scratchDirs: string[] = [];

/** A scratch project with closer's tsconfig and the given files under src/. */
function scratchProject(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), "closer-layers-"));
  scratchDirs.push(dir);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, "src", path)), { recursive: true });
    writeFileSync(join(dir, "src", path), text);
  }
  return dir;
}

afterEach(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the layer order", () => {
  it("holds in src/", async () => {
    const result = await cruise(ROOT);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });

  it("refuses a type import from ports/ up to loop/", async () => {
    const dir = scratchProject({
      "loop/run-context.ts": "export interface RunContext { readonly runId: string }\n",
      "ports/files.ts":
        'import type { RunContext } from "../loop/run-context.js";\nexport type Held = RunContext;\n',
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("below-ports: src/ports/files.ts → src/loop/run-context.ts");
  });

  it("refuses an import from the loop up to its composition root", async () => {
    const dir = scratchProject({
      "run/make-loop-ports.ts": "export const made = 1;\n",
      "loop/prepare-run.ts":
        'import { made } from "../run/make-loop-ports.js";\nexport const x = made;\n',
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "below-loop: src/loop/prepare-run.ts → src/run/make-loop-ports.ts",
    );
  });

  it("allows an import down a layer", async () => {
    const dir = scratchProject({
      "ports/events.ts": "export type RunEvent = { readonly type: string };\n",
      "loop/emit.ts":
        'import type { RunEvent } from "../ports/events.js";\nexport type Emitted = RunEvent;\n',
    });
    const result = await cruise(dir);
    expect(result.output).toContain("no dependency violations found");
  });

  it("refuses an import cycle inside one folder", async () => {
    const dir = scratchProject({
      "loop/a.ts": 'import type { B } from "./b.js";\nexport type A = { readonly b?: B };\n',
      "loop/b.ts": 'import type { A } from "./a.js";\nexport type B = { readonly a?: A };\n',
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("no-cycle");
  });

  it("refuses a folder that is not in the order", async () => {
    const dir = scratchProject({
      "helpers/text.ts": "export const text = 1;\n",
      "loop/use.ts": 'import { text } from "../helpers/text.js";\nexport const used = text;\n',
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("import-of-unplaced: src/loop/use.ts → src/helpers/text.ts");
  });
});
