/** What every benchmark shares: medians, rounding, and timing a process from outside. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

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
 * Runs a process to its end, its output discarded; its wall time in ms, as
 * its parent sees it (start-up and exit included). A non-zero exit throws,
 * with what it printed on stderr.
 * @param {string} file
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<number>}
 */
export function timeProcess(file, args, options = {}) {
  return new Promise((resolve, reject) => {
    const startedMs = performance.now();
    const child = spawn(file, args, { ...options, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const elapsedMs = performance.now() - startedMs;
      if (code === 0) resolve(elapsedMs);
      else reject(new Error(`${file} ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
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
