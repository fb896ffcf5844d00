/**
 * A program as closer starts it, and the one place a run's OS sandbox
 * (docs/sandbox.md) changes it: the sandbox's wrapper turns the launch into
 * one that runs the same program inside the sandbox.
 */
import { constants } from "node:os";

/**
 * How a wrapped program ended, as its wrapper reports it: a shell between closer and the
 * program (the sandbox's) turns "killed by signal N" into exit code 128+N, which is read back
 * as the signal. A program that is not wrapped is told apart by the kernel itself.
 */
export function unwrapExit(
  code: number | null,
  signal: NodeJS.Signals | null,
  wrapped: boolean,
): { readonly code: number | null; readonly signal: NodeJS.Signals | null } {
  if (!wrapped || signal !== null || code === null || code <= 128) return { code, signal };
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return name === undefined ? { code, signal } : { code: null, signal: name as NodeJS.Signals };
}
