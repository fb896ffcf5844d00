import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";

/**
 * This process among the others: in closer's OS sandbox every process has a pid of a
 * namespace of its own (the fake is often pid 2), so the log tells processes apart by an id
 * of their own, and the test finds a live one by the mark closer gives each process group.
 */
const instance = randomUUID();
const mark = process.env.PROCESS_TREE_MARK ?? "";

/**
 * A JSON-lines log the test reads afterwards. Appends synchronously so a
 * record survives the process being killed right after.
 * @param {string} path
 */
export function makeLog(path) {
  /** @param {Record<string, unknown>} record */
  return (record) => {
    const stamp = { pid: process.pid, instance, mark, at: Date.now() };
    appendFileSync(path, `${JSON.stringify({ ...record, ...stamp })}\n`);
  };
}
