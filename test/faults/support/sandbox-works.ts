/**
 * Whether the OS sandbox runs on this machine, found once per test process
 * by closer's own probe (a sandboxed `true`). The sandbox's faults skip,
 * saying why, where it cannot.
 */
import { sandboxSupport } from "../../../src/sandbox/sandbox-runtime.js";

const support = await sandboxSupport();

export const sandboxWorks: boolean = support.works;

/** Why the sandbox does not run here, and what would make it; empty where it does. */
export const sandboxMissing: string = support.works ? "" : `${support.reason} (${support.fix})`;
