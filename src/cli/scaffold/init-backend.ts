import { backendConfigSchema } from "../../definition/agent-file-schema.js";
import { BACKEND_KINDS } from "../../definition/backend-kinds.js";
import type { BackendKind } from "../../definition/types.js";
import { CloserError } from "../../errors.js";
import { makeBackendConfig } from "./definition-files.js";

/** The backend a scaffold is written for: `--backend`'s kind, or claude-sdk. */
export function initBackend(name: string | undefined): BackendKind {
  if (name === undefined) return "claude-sdk";
  const kind = BACKEND_KINDS.find((candidate) => candidate === name);
  // scripted is for agents run from code (closer/testing): it is accepted, not offered.
  const usable = BACKEND_KINDS.filter(
    (candidate) => candidate !== "scripted" && writable(candidate) === undefined,
  );
  if (kind === undefined) {
    throw new CloserError("usage_error", `--backend ${JSON.stringify(name)} is not a backend`, {
      expected: `one of ${usable.join(", ")}`,
      found: name,
      fix: `pass --backend with one of ${usable.join(", ")}`,
    });
  }
  const missing = writable(kind);
  if (missing !== undefined) {
    throw new CloserError(
      "usage_error",
      `closer init cannot write the ${kind} backend alone: ${missing}`,
      {
        fix: `init with --backend ${usable[0]}, then set runner.backend in agent.json by hand`,
      },
    );
  }
  return kind;
}

/** Why the scaffold's configuration of `kind` would not load (a field only the user can give), or undefined. */
function writable(kind: BackendKind): string | undefined {
  const parsed = backendConfigSchema.safeParse(makeBackendConfig(kind));
  return parsed.success ? undefined : parsed.error.issues.map((issue) => issue.message).join("; ");
}
