/** What every benchmark shares: medians, rounding, and timing a process from outside. */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { runCommand } from "../dist/process/shell-command.js";

/** A measured process that runs longer than this is stuck, not slow. */
const PROCESS_TIMEOUT_MS = 120_000;

/**
 * @param {number[]} values
 * @returns {number}
 */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

/** @param {number} value */
export const round = (value) => Math.round(value * 1000) / 1000;

/** @param {number} bytes */
export const megabytes = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Runs a process to its end through closer's own process runner, its output
 * kept only for an error; its wall time in ms as its parent sees it
 * (start-up and exit included). A non-zero exit throws, with its stderr.
 * @param {string} file
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string> }} [options]
 * @returns {Promise<number>}
 */
export async function timeProcess(file, args, options = {}) {
  const startedMs = performance.now();
  const result = await runCommand({
    command: [file, ...args],
    cwd: options.cwd ?? process.cwd(),
    ...(options.env === undefined ? {} : { env: options.env }),
    timeoutMs: PROCESS_TIMEOUT_MS,
  });
  const elapsedMs = performance.now() - startedMs;
  if (result.exitCode !== 0) {
    throw new Error(
      `${file} ${args.join(" ")} exited ${result.exitCode}: ${result.stderr.slice(-2000)}`,
    );
  }
  return elapsedMs;
}

/**
 * Runs each named piece of work `rounds` times, interleaved and in a rotating
 * order so that machine load weighs on all alike; the wall times of each.
 * @param {Record<string, () => Promise<number>>} works
 * @param {number} rounds
 * @returns {Promise<Record<string, number[]>>}
 */
export async function interleave(works, rounds) {
  const names = Object.keys(works);
  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(round + turn) % names.length];
      times[name].push(await works[name]());
    }
  }
  return times;
}

/** The shipped CLI, as package.json's `bin` names it. */
export function closerBin() {
  const manifestUrl = new URL("../package.json", import.meta.url);
  const manifest = JSON.parse(readFileSync(manifestUrl, "utf8"));
  return fileURLToPath(new URL(manifest.bin.closer, manifestUrl));
}
