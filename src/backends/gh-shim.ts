/**
 * The `gh` shim: for the backends that cannot veto a tool use, the agent's
 * PATH starts with a folder holding a `gh` that refuses every command and
 * notes the attempt, which closer reads after the query and records
 * (docs/worktrees-and-github.md#github-boundary). It is a tripwire, not a
 * wall: the real guard is that the agent's environment holds no GitHub token.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Backend, BackendResponse } from "../ports/backend.js";
import { pathWithFirst } from "../process/agent-environment.js";
import { BOUNDARY_MESSAGE } from "./boundary.js";

/** One query's shim folder. */
export interface GhShim {
  /** The folder that goes first on the agent's PATH. */
  readonly folder: string;
  /** The refused commands, in order (`gh issue close 7`). */
  readAttempts(): Promise<string[]>;
  remove(): Promise<void>;
}

const ATTEMPTS_FILE = "gh-attempts.log";

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The script: notes the command on one line, explains on stderr, exits 1. */
export function ghShimScript(attemptsFile: string): string {
  return [
    "#!/bin/sh",
    `printf 'gh %s\\n' "$*" >> ${shellQuoted(attemptsFile)}`,
    `printf '%s\\n' ${shellQuoted(`gh: refused by closer. ${BOUNDARY_MESSAGE}`)} >&2`,
    "exit 1",
    "",
  ].join("\n");
}

/** Makes a shim folder under `tempDir` (default: the system temp folder). */
export async function makeGhShim(tempDir: string = os.tmpdir()): Promise<GhShim> {
  const folder = await mkdtemp(path.join(tempDir, "closer-gh-"));
  const attemptsFile = path.join(folder, ATTEMPTS_FILE);
  const executable = path.join(folder, "gh");
  await writeFile(executable, ghShimScript(attemptsFile));
  await chmod(executable, 0o755);
  return {
    folder,
    async readAttempts() {
      const text = await readFile(attemptsFile, "utf8").catch(() => "");
      return text.split("\n").filter((line) => line.trim() !== "");
    },
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/**
 * `backend` with the shim first on its PATH for each query; the refused
 * commands come back as the response's `boundaryAttempts`.
 */
export function withGhShim(
  backend: Backend,
  baseEnv: Readonly<Record<string, string | undefined>> = process.env,
): Backend {
  return {
    ...backend,
    async query(request): Promise<BackendResponse> {
      // In the run's sandbox, the shim's log must be where the model's processes may write.
      const shim = await makeGhShim(request.tempDir);
      try {
        const PATH = pathWithFirst(shim.folder, request.env.PATH ?? baseEnv.PATH);
        const response = await backend.query({ ...request, env: { ...request.env, PATH } });
        const attempts = await shim.readAttempts();
        if (attempts.length === 0) return response;
        return {
          ...response,
          boundaryAttempts: [...(response.boundaryAttempts ?? []), ...attempts],
        };
      } finally {
        await shim.remove();
      }
    },
  };
}
