/**
 * The built-in retry texts of the integrity guards (docs/integrity.md#guards,
 * docs/integrity.md#one-commit) and of the closure review
 * (docs/completion.md#closure-review): what was found and what to do, then what else the same
 * check found (docs/retry.md#also-found). An agent's own `f_failed_<pattern>.md` wins.
 */
type RetryText = (params: Readonly<Record<string, unknown>>) => string[];

const OWN_TEXTS: Readonly<Record<string, RetryText>> = {
  "tests-removed": (params) => [
    "The tests were weakened, so the checks that passed do not count.",
    ...listed("Tests that ran at the start of the run and are gone now:", params.missingTests),
    ...listed("Tests that are skipped or marked todo now:", params.skippedTests),
    ...(params.focused === true
      ? ["", "A focus filter (`.only`, `fit`, `--test-only`, …) now limits which tests run."]
      : []),
    ...(params.noTestsRan === true
      ? ["", `No test ran in the check "${String(params.validator)}".`]
      : ranFewer(params)),
    "",
    "Restore every test listed above (a test whose assertion was wrong about the intended " +
      "behaviour may be corrected, not removed or skipped), take out skip and focus markers, and " +
      "make the tests pass by fixing the code. Then declare completion again.",
  ],
  "review-rejected": (params) => [
    "An independent review of your work did not accept it as done.",
    ...listed("What the review asks for:", params.pendingActions),
    ...listed("Checklist items it found not done, with its evidence:", params.checklist),
    "",
    "Do what is listed above (a weakened test or check is restored and the code fixed instead), " +
      "make sure the checks pass, then declare completion again.",
  ],
  "protected-changed": (params) => [
    "Files that define how the work is checked changed since the run started:",
    ...bullets(params.protectedPaths),
    "",
    "Put them back exactly as they were at the start of the run (undo your edits, e.g. " +
      "`git checkout <the run's start commit> -- <path>`), and fix the code instead. closer compares " +
      "them with their content at the start of the run. Then declare completion again.",
  ],
  "git-config-changed": (params) => [
    "You changed the repository's git configuration, hooks or info/ files, which are not yours " +
      "to change (they would run programs in closer's own git commands):",
    ...bullets(params.gitPaths),
    "",
    "closer has put them back as they were at the start of the run, so this iteration does not " +
      "count. Do not change `.git/config`, `.git/hooks/` or `.git/info/` (no `git config` " +
      "writes); do the work in the tree, then declare completion again.",
  ],
  "sandbox-refused": (params) => [
    "closer's OS sandbox refused these writes or connections of your processes (or of your " +
      "code, run by a check):",
    ...bullets(params.refusals),
    "",
    "You may write only in the working tree and in $TMPDIR; closer's git files (config, hooks, " +
      "HEAD, other branches), the agent definition and the run record are read-only, and only " +
      "the hosts the agent allows can be reached (tests get none). This attempt does not count: " +
      "do the work inside the working tree, without the network, then declare completion again.",
  ],
  "tree-changed": (params) => [
    "Your work changed while closer was checking it, so the checks that ran do not count: " +
      "closer judges one commit and merges only the commit its checks ran on.",
    ...bullets(params.moved),
    "",
    "Something kept running after your turn (a process you started in the background, a " +
      "watcher, a server) or a check itself committed or wrote files. Stop every process you " +
      "started that commits or writes to the working tree, make sure the work you want is " +
      "committed, then declare completion again.",
  ],
};

export const BUILTIN_RETRY_TEXTS: Readonly<Record<string, RetryText>> = Object.fromEntries(
  Object.entries(OWN_TEXTS).map(([pattern, text]) => [pattern, withAlsoFound(text)]),
);

/** The text, then the other failures of the same check when there are any. */
function withAlsoFound(text: RetryText): RetryText {
  return (params) => {
    const others = typeof params.otherFailures === "string" ? params.otherFailures : "";
    return others === "" ? text(params) : [...text(params), "", others];
  };
}

function listed(title: string, value: unknown): string[] {
  const lines = bullets(value);
  return lines.length === 0 ? [] : ["", title, ...lines];
}

function bullets(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => `- ${String(item)}`) : [];
}

function ranFewer(params: Readonly<Record<string, unknown>>): string[] {
  const before = Number(params.testsRanBefore);
  const now = Number(params.testsRanNow);
  if (!(now < before)) return [];
  return ["", `${now} tests ran in "${String(params.validator)}"; ${before} ran at the start.`];
}
