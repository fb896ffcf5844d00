import { appendFileSync } from "node:fs";

/**
 * A JSON-lines log the test reads afterwards. Appends synchronously so a
 * record survives the process being killed right after.
 * @param {string} path
 */
export function makeLog(path) {
  /** @param {Record<string, unknown>} record */
  return (record) => {
    appendFileSync(path, `${JSON.stringify({ ...record, pid: process.pid, at: Date.now() })}\n`);
  };
}
