/**
 * Parts of agent.json's runner: the run record and its output, what the
 * processes that run the model's code get of closer's environment, and the
 * OS sandbox they run in.
 */
import { z } from "zod";

export const loggingSchema = z
  .strictObject({
    runsDir: z
      .string()
      .min(1)
      .optional()
      .describe("Where run folders go; default: closer/runs inside the git folder."),
    verbose: z.boolean().default(false).describe("Print more progress."),
  })
  .prefault({})
  .describe("Run record and progress output.");

export const recordSchema = z
  .strictObject({
    maxFieldBytes: z
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(256 * 1024)
      .describe(
        "What the run record keeps of each stored text (event field, run.json field, prompt, transcript): its head and tail, in bytes; default 256 KiB.",
      ),
  })
  .prefault({})
  .describe("The run record's bounds (docs/record.md#bounded-record).");

const variableNames = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/)
      .describe("A variable name; a trailing * matches every name that starts with the rest."),
  )
  .default([]);

export const envSchema = z
  .strictObject({
    pass: variableNames.describe(
      "Variables of closer's environment passed to the backend and the validators.",
    ),
    backend: variableNames.describe("Variables passed to the backend only."),
    validators: variableNames.describe("Variables passed to the validators only."),
  })
  .prefault({})
  .describe(
    "What the processes that run the model's code get of closer's environment beyond the allowlist; never closer's GitHub tokens.",
  );

export const SANDBOX_MODES = ["auto", "on", "off"] as const;

const sandboxPaths = (what: string) =>
  z
    .array(z.string().min(1))
    .default([])
    .describe(`${what}: absolute, \`~/\`-relative, or relative to the working tree.`);

const hostPatterns = (what: string) =>
  z
    .array(
      z
        .string()
        .regex(/^[^\s/]+$/)
        .describe("A host name, `*.example.com`, an IP address, with an optional `:port`."),
    )
    .default([])
    .describe(what);

export const sandboxSchema = z
  .strictObject({
    mode: z
      .enum(SANDBOX_MODES)
      .default("auto")
      .describe(
        "auto: on where the OS sandbox works, off with a warning where it does not; on: refuse to run without it; off.",
      ),
    allowWrite: sandboxPaths("More places the model's processes may write"),
    denyRead: sandboxPaths("More places the model's processes may not read"),
    allowedDomains: hostPatterns(
      "Hosts the backend may reach besides its model API (e.g. a package registry).",
    ),
    validatorDomains: hostPatterns("Hosts the validators may reach; none by default."),
    registries: z
      .enum(["auto", "none"])
      .default("auto")
      .describe(
        "auto: the backend may also reach the package registries of the ecosystems the tree's lockfiles name (npm, PyPI, Go, crates.io, JSR); none: only allowedDomains.",
      ),
    ignoreRefusals: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Places (`~/…` or with a /) and hosts whose refusals do not fail an attempt: they stay refused; for tools that write or call out on their own.",
      ),
  })
  .prefault({})
  .describe(
    "The OS sandbox around the backend and the validators (docs/sandbox.md): where they may write and read, which hosts they may reach.",
  );
