/** What `closer doctor` finds, one line per prerequisite (docs/cli.md#doctor). */

/** `missing`: a run would fail without it; `warning`: some runs may. */
export type CheckStatus = "ok" | "missing" | "warning";

export interface DoctorCheck {
  /** What is checked: `node`, `git identity`, `bubblewrap`, `codex: credential`. */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, or what is wrong. */
  readonly detail: string;
  /** The command that installs or sets it, when it is not ok. */
  readonly fix?: string;
  /** The agents that need it; absent for what every run needs. */
  readonly agents?: readonly string[];
}

/** Where the checks look: closer's environment, its PATH and the project. */
export interface DoctorPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project folder (`--cwd`). */
  readonly cwd: string;
  readonly home: string;
  readonly platform: NodeJS.Platform;
}

export function ok(name: string, detail: string): DoctorCheck {
  return { name, status: "ok", detail };
}

export function notOk(
  status: Exclude<CheckStatus, "ok">,
  name: string,
  detail: string,
  fix: string,
): DoctorCheck {
  return { name, status, detail, fix };
}

/** `missing` for what a run must have, `warning` for what it can do without. */
export function absent(required: boolean): Exclude<CheckStatus, "ok"> {
  return required ? "missing" : "warning";
}

/** The checks of several agents as one list: the same finding once, naming every agent it concerns. */
export function mergeChecks(checks: readonly DoctorCheck[]): DoctorCheck[] {
  const merged = new Map<string, DoctorCheck>();
  for (const check of checks) {
    const key = `${check.name}\u0000${check.status}\u0000${check.detail}`;
    const known = merged.get(key);
    if (known === undefined) {
      merged.set(key, check);
    } else if (known.agents !== undefined && check.agents !== undefined) {
      merged.set(key, { ...known, agents: [...new Set([...known.agents, ...check.agents])] });
    }
  }
  return [...merged.values()];
}
