/**
 * Keeps V8's young generation at the size it starts with for a command that
 * runs the loop (docs/performance.md#loop-costs). Left to itself, V8
 * doubles its semi-spaces whenever as many bytes survive a scavenge as they
 * hold, which the start of a run does (its modules' objects are long-lived), up
 * to 8 MB each: 16 MB of a 20-iteration run's 84 MB. At 1 MB the run peaks at
 * about 72 MB, and each process it starts forks a smaller parent.
 *
 * The semi-spaces' ceiling (`--max-semi-space-size`) is fixed when the heap is
 * made, before any code runs; how much they grow by is read at each growth, so
 * it can be set here, before the command's bundle runs. Only the growth is
 * changed: what the heap may hold in all, and every collection, stay V8's.
 */
const GROWTH_FLAG = "--semi-space-growth-factor=1";

/** The commands whose process runs an agent's loop and starts its processes. */
const LOOP_COMMANDS: ReadonlySet<string> = new Set(["run"]);

/**
 * Sets the flag for `command` when it runs the loop; other commands (`--help`,
 * `validate`) start as before, without loading `node:v8`.
 */
export function keepYoungGenerationSmall(command: string): boolean {
  if (!LOOP_COMMANDS.has(command)) return false;
  process.getBuiltinModule("node:v8").setFlagsFromString(GROWTH_FLAG);
  return true;
}
