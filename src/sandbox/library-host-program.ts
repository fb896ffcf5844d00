/**
 * The program of the sandbox library's host process (docs/sandbox.md#library-host), as source:
 * it loads the library from the URL it is given, answers closer's requests one message each,
 * and sends every refusal the library reports as it comes. It works from an empty folder of
 * its own, which it removes when closer closes the channel (or ends, however it ends).
 */
export const LIBRARY_HOST_PROGRAM = `
import { rmdirSync } from "node:fs";
const library = await import(process.argv[1]);
const manager = library.SandboxManager;
// The text the monitor names an attribution key by: the wrap registers it, a held sandbox's
// entries are not wrapped (docs/sandbox.md#held-sandbox).
const texts = await import(new URL("./sandbox/sandbox-manager.js", process.argv[1]).href).catch(
  () => ({}),
);
const turn = () => new Promise((done) => setImmediate(done));
function forwardRefusals() {
  const store = manager.getSandboxViolationStore();
  let seen = store.getTotalCount();
  store.subscribe((violations) => {
    const total = store.getTotalCount();
    const count = Math.min(total - seen, violations.length);
    seen = total;
    if (count <= 0) return;
    for (const violation of violations.slice(-count)) {
      if (violation.command === undefined) continue;
      process.send({ refusal: { command: violation.command, line: violation.line } });
    }
  });
}
const requests = {
  async start(config) {
    if (!manager.isSupportedPlatform()) return { supported: false };
    const dependencies = await manager.checkDependenciesAsync();
    if (dependencies.errors.length > 0) return { supported: true, missing: dependencies.errors };
    try {
      await manager.initialize(config, undefined, true);
    } catch (error) {
      return { supported: true, missing: [], failed: String(error) };
    }
    forwardRefusals();
    return { supported: true, missing: [], writePaths: library.getDefaultWritePaths() };
  },
  async wrap({ command, config, cwd, options }) {
    const { argv } = await manager.wrapWithSandboxArgv(command, undefined, config, undefined, cwd, options);
    return argv;
  },
  register({ commandId, lists }) {
    manager.registerCommandNetworkLists(commandId, lists);
  },
  unregister({ commandId }) {
    manager.unregisterCommandNetworkLists(commandId);
  },
  label({ commandId, text }) {
    if (typeof texts.registerCommandText !== "function") return false;
    texts.registerCommandText(text, { commandId, commandText: text });
    return true;
  },
  cleanup() {
    manager.cleanupAfterCommand();
  },
  // Two turns of the event loop let the refusals already sent over the library's socket be read.
  async flush() {
    await turn();
    await turn();
  },
  async reset() {
    await manager.reset();
  },
};
process.on("message", async ({ id, request, args }) => {
  try {
    process.send({ id, value: (await requests[request](args)) ?? null });
  } catch (error) {
    process.send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
process.on("disconnect", async () => {
  try {
    await manager.reset();
  } finally {
    try {
      rmdirSync(process.cwd());
    } catch {}
    process.exit(0);
  }
});
`;
