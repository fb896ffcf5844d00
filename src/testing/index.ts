/** Test support shipped with closer: script the model, keep git and processes real. */
export {
  type AgentFixture,
  type FixtureRepo,
  makeFixtureRepo,
  writeAgent,
} from "./fixture-repo.js";
export {
  makeScriptedBackend,
  type ScriptedBackend,
  type ScriptedStep,
  type ScriptedTurn,
  scriptedError,
} from "./scripted-backend.js";
export { makeTestClock, type TestClock } from "./test-clock.js";
