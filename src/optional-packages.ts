/**
 * The packages only some paths of closer use, installed by those who use them
 * (docs/cli.md#install): package.json names them as optional peer
 * dependencies, so an install of closer leaves them out.
 */
import { createRequire } from "node:module";
import { CloserError } from "./errors.js";

/** What a path of closer needs beyond the default install. */
export interface OptionalPackages {
  /** The path that needs them, as the error names it. */
  readonly usedBy: string;
  /** Each as `npm install` takes it: the name and the major version closer works with. */
  readonly packages: readonly string[];
}

/** The `openai-compatible` backend runs its tool loop through the AI SDK (docs/backends.md#openai-compatible). */
export const OPENAI_COMPATIBLE_PACKAGES: OptionalPackages = {
  usedBy: "the openai-compatible backend",
  packages: ["ai@6", "@ai-sdk/openai-compatible@2"],
};

/** The job queue runs on BullMQ (docs/queue.md). */
export const QUEUE_PACKAGES: OptionalPackages = {
  usedBy: "the job queue (closer enqueue, worker, queue, watch and serve)",
  packages: ["bullmq@5"],
};

/** `ai@6` → `ai`, `@ai-sdk/openai-compatible@2` → `@ai-sdk/openai-compatible`. */
export function packageNameOf(spec: string): string {
  const at = spec.lastIndexOf("@");
  return at > 0 ? spec.slice(0, at) : spec;
}

function isInstalled(name: string, from: string): boolean {
  try {
    createRequire(from).resolve(name);
    return true;
  } catch (error) {
    // Found but not loadable this way (an export condition): loading it will say what is wrong.
    return (error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND";
  }
}

/** The packages of `needed` that Node does not find from closer's own folder (`from`). */
export function missingPackages(
  needed: OptionalPackages,
  from: string = import.meta.url,
): readonly string[] {
  return needed.packages.filter((spec) => !isInstalled(packageNameOf(spec), from));
}

/** What is missing, and the command that installs it: for an error or a lint problem. */
export function describeMissing(
  needed: OptionalPackages,
  missing: readonly string[],
): { readonly message: string; readonly fix: string } {
  const names = missing.map(packageNameOf).join(" and ");
  return {
    message: `${needed.usedBy} needs ${names}, which ${missing.length === 1 ? "is" : "are"} not installed`,
    fix: `npm install ${missing.join(" ")} where closer-agent is installed (with --global for a global closer-agent; docs/cli.md#install)`,
  };
}

/** Throws a `config_error` naming the missing packages of `needed` and the command that installs them. */
export function assertPackagesInstalled(
  needed: OptionalPackages,
  from: string = import.meta.url,
): void {
  const missing = missingPackages(needed, from);
  if (missing.length === 0) return;
  const { message, fix } = describeMissing(needed, missing);
  throw new CloserError("config_error", message, { found: "not installed", fix });
}
