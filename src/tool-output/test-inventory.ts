import type { TestInventory } from "../ports/test-inventory.js";
import { splitOutputLines } from "./output-lines.js";
import { readGoInventory } from "./test-inventory-go.js";
import { readJestInventory, readMochaInventory, readVitestInventory } from "./test-inventory-js.js";
import {
  readCargoInventory,
  readDenoInventory,
  readPytestInventory,
} from "./test-inventory-native.js";
import { readNodeSpecInventory, readTapInventory } from "./test-inventory-node.js";
import { readAvaInventory, readUvuInventory } from "./test-inventory-uvu-ava.js";

export type {
  InventoryTest,
  TestCounts,
  TestInventory,
  TestRunner,
  TestState,
} from "../ports/test-inventory.js";
export { countTests } from "./inventory-test.js";

/**
 * Each reader answers only for output it recognizes by the runner's own summary
 * or header lines. The most distinctive formats go first: TAP's `ok` lines and
 * pytest's closing line could otherwise be mistaken in another runner's output.
 */
const INVENTORY_READERS: readonly ((lines: readonly string[]) => TestInventory | undefined)[] = [
  readCargoInventory,
  readDenoInventory,
  readGoInventory,
  readJestInventory,
  readVitestInventory,
  readUvuInventory,
  readAvaInventory,
  readMochaInventory,
  readNodeSpecInventory,
  readPytestInventory,
  readTapInventory,
];

/**
 * The tests a test run reports (docs/completion.md#test-inventory): vitest, jest,
 * mocha, uvu, ava, node:test (spec and TAP), node-tap, pytest, go test, cargo
 * test and deno test,
 * with or without color. Undefined when the output is not recognisably from a
 * test runner (an empty or no-op test script). Never throws.
 */
export function parseTestInventory(text: string): TestInventory | undefined {
  const lines = splitOutputLines(text);
  for (const read of INVENTORY_READERS) {
    const inventory = read(lines);
    if (inventory) return inventory;
  }
  return undefined;
}
