// placeholder replaced by the real extractor at merge
export type TestState = "passed" | "failed" | "skipped" | "todo";
export interface InventoryTest {
  readonly name: string;
  readonly state: TestState;
}
export interface TestInventory {
  readonly runner: string;
  readonly tests: readonly InventoryTest[];
  readonly counts?: { passed: number; failed: number; skipped: number; todo: number };
  readonly complete: boolean;
  readonly focused?: boolean;
}
export interface InventoryLoss {
  readonly missing: string[];
  readonly newlySkipped: string[];
  readonly ranBefore: number;
  readonly ranNow: number;
  readonly focused: boolean;
  readonly noTestsRan: boolean;
  readonly lost: boolean;
}
export function parseTestInventory(_text: string): TestInventory | undefined {
  return undefined;
}
export function compareInventories(
  _b: TestInventory,
  _n: TestInventory | undefined,
): InventoryLoss {
  return {
    missing: [],
    newlySkipped: [],
    ranBefore: 0,
    ranNow: 0,
    focused: false,
    noTestsRan: true,
    lost: true,
  };
}
