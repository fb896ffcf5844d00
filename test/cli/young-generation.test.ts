import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const YOUNG_GENERATION = fileURLToPath(
  new URL("../../src/cli/young-generation.ts", import.meta.url),
);

/**
 * Calls keepYoungGenerationSmall(command) in a fresh process, then keeps what
 * a command's start keeps (many long-lived objects) and prints the young
 * generation's size before and after, and whether node:v8 was set.
 */
const DRIVER = `import { keepYoungGenerationSmall } from ${JSON.stringify(YOUNG_GENERATION)};
import v8 from "node:v8";
const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
const before = newSpace();
const set = keepYoungGenerationSmall(process.argv[1]);
const kept = [];
for (let i = 0; i < 400_000; i += 1) kept.push({ i, text: "x" + i });
process.stdout.write(JSON.stringify({ set, before, after: newSpace(), kept: kept.length }));
`;

async function youngGenerationOf(
  command: string,
): Promise<{ set: boolean; before: number; after: number }> {
  const child = spawn(
    process.execPath,
    ["--import", TSX_LOADER, "--input-type=module", "-e", DRIVER, command],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code).toBe(0);
  return JSON.parse(out) as { set: boolean; before: number; after: number };
}

describe("keepYoungGenerationSmall", () => {
  it("keeps a run's young generation at the size it started with", async () => {
    const run = await youngGenerationOf("run");
    expect(run.set).toBe(true);
    expect(run.after).toBe(run.before);
  });

  it("leaves other commands' young generation to V8", async () => {
    const validate = await youngGenerationOf("validate");
    expect(validate.set).toBe(false);
    expect(validate.after).toBeGreaterThan(validate.before);
  });
});
