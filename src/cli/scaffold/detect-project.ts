import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { detectNode } from "./detect-node.js";
import { detectPython } from "./detect-python.js";
import { detectCargo, detectDeno, detectGo, detectMakefile } from "./detect-toolchains.js";
import type { ProjectFindings, ReadProjectFile } from "./project-check.js";

/**
 * Every kind of project `closer init` knows, in the order their checks are preferred when a
 * project is of more than one kind (docs/cli.md#init-detection).
 */
const DETECTORS: readonly ((read: ReadProjectFile) => Promise<ProjectFindings>)[] = [
  detectNode,
  detectDeno,
  detectPython,
  detectGo,
  detectCargo,
  detectMakefile,
];

/** What the project in `dir` has: it only reads files there, and changes nothing. */
export async function detectProject(dir: string): Promise<ProjectFindings> {
  const read: ReadProjectFile = (path) => readFile(join(dir, path), "utf8").catch(() => undefined);
  const found: string[] = [];
  const checks: ProjectFindings["checks"][number][] = [];
  const skipped: ProjectFindings["skipped"][number][] = [];
  for (const detect of DETECTORS) {
    const findings = await detect(read);
    found.push(...findings.found);
    checks.push(...findings.checks);
    skipped.push(...findings.skipped);
  }
  return { found, checks, skipped };
}
