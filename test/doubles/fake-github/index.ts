export type {
  FakeGithubSeed,
  FakeGithubState,
  FakeIssue,
  FakeIssueSeed,
  FakeProjectSeed,
  FakePullRequest,
} from "./fake-github-state.js";
export type {
  FakeFailure,
  FakeGithub,
  HeldReply,
  RecordedRequest,
} from "./start-fake-github.js";
export { startFakeGithub } from "./start-fake-github.js";
