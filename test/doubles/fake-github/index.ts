export type {
  FakeGithubSeed,
  FakeGithubState,
  FakeIssue,
  FakeIssueSeed,
  FakeProjectSeed,
} from "./fake-github-state.js";
export type { FakeFailure, FakeGithub, RecordedRequest } from "./start-fake-github.js";
export { startFakeGithub } from "./start-fake-github.js";
