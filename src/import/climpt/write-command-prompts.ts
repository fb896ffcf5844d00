import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { isPlainObject } from "../../plain-object.js";
import type { FileMapping, MappingEntry } from "./mapping-report.js";

/** `${context.prNumber}`: a parameter climpt puts into a command's arguments. */
const CONTEXT_PLACEHOLDER = /\$\{context\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A climpt step with `runner: {command, args}` runs a program instead of asking the model.
 * closer's steps are prompts, so the step's prompt (when climpt has none) asks the model to
 * run that command and report how it went; `${context.NAME}` becomes `{{NAME}}`.
 */
export async function writeCommandPrompts(
  source: Record<string, unknown>,
  registry: Record<string, unknown>,
  out: string,
  mapping: FileMapping,
): Promise<MappingEntry[]> {
  const entries: MappingEntry[] = [];
  const steps = isPlainObject(registry.steps) ? registry.steps : {};
  const sourceSteps = isPlainObject(source.steps) ? source.steps : {};
  const c1 = typeof registry.c1 === "string" ? registry.c1 : "steps";
  for (const [id, step] of Object.entries(steps)) {
    const runner = isPlainObject(sourceSteps[id]) ? sourceSteps[id].runner : undefined;
    if (!isPlainObject(runner) || typeof runner.command !== "string") continue;
    const file = promptFile(c1, step as Record<string, unknown>);
    if (await exists(path.join(out, file))) continue;
    const args = Array.isArray(runner.args) ? runner.args.map(String) : [];
    const command = [runner.command, ...args].map(quoted).join(" ");
    await mkdir(path.dirname(path.join(out, file)), { recursive: true });
    await writeFile(path.join(out, file), commandPrompt(command));
    mapping.mapped(["steps", id, "runner"], file, "a prompt asking the model to run the command");
    entries.push({
      file,
      from: "",
      to: file,
      note: "written: climpt runs this step's command itself",
    });
  }
  return entries;
}

function promptFile(c1: string, step: Record<string, unknown>): string {
  const edition = typeof step.edition === "string" ? step.edition : "default";
  const adaptation = typeof step.adaptation === "string" ? `_${step.adaptation}` : "";
  return `prompts/${c1}/${String(step.c2)}/${String(step.c3)}/f_${edition}${adaptation}.md`;
}

function quoted(word: string): string {
  const handlebars = word.replace(CONTEXT_PLACEHOLDER, (_whole, name: string) => `{{${name}}}`);
  return /^[\w./:=@{}-]+$/.test(handlebars) ? handlebars : `'${handlebars.replace(/'/g, "'\\''")}'`;
}

function commandPrompt(command: string): string {
  return [
    "Run this command in the working tree, once:",
    "",
    "```sh",
    command,
    "```",
    "",
    "Then answer with what it printed and whether it exited 0. Change nothing else.",
    "",
  ].join("\n");
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}
