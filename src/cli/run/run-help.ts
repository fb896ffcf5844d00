import { BACKEND_KINDS } from "../../ports/runner-config.js";

/** The help of `closer run`: its options and what follows them. */
import type { OptionHelp } from "./parameter-flags.js";

/** closer run's options, in the order `--help` lists them. */
export const RUN_OPTIONS: readonly OptionHelp[] = [
  {
    flags: "--agent <agent>",
    description: "the agent to run (the same as the positional <agent>)",
  },
  {
    flags: "--issue <n>",
    description: "work on GitHub issue N in its own worktree (branch closer/issue-N)",
  },
  {
    flags: "--task <text>",
    description: "work on a written task: first line is the title, the text the body",
  },
  {
    flags: "--task-file <file>",
    description:
      "read the task from a file: first Markdown heading (or line) is the title, the rest the body",
  },
  {
    flags: "--label <label>",
    description: "run every open issue with this label, each in its own worktree",
  },
  {
    flags: "--project <n>",
    description: "with --label or alone: only issues on GitHub Projects v2 board N",
  },
  {
    flags: "--concurrency <k>",
    description: "issues run at once with --label/--project (default 2)",
  },
  {
    flags: "--resume <run-id>",
    description:
      "resume a run that did not complete where its record says it stopped, with the agent definition it started with",
  },
  {
    flags: "--reload-definition",
    description:
      "with --resume: the resumed run takes the agent folder as it is now instead of the definition it started with",
  },
  {
    flags: "--rebuild",
    description:
      "with --resume: rebuild the run's damaged run.json from its events.jsonl, then resume",
  },
  {
    flags: "--cwd <dir>",
    description: "project directory that holds .agent/ (default: the current directory)",
  },
  {
    flags: "--max-iterations <n>",
    description: "iterations before the run ends with max_iterations (overrides agent.json)",
  },
  {
    flags: "--branch <branch>",
    description:
      "branch of the run's worktree (default closer/issue-N; with --task it asks for a worktree)",
  },
  {
    flags: "--base-branch <branch>",
    description: "branch the work starts from and merges into (default: the current branch)",
  },
  {
    flags: "--sandbox <mode>",
    description:
      "auto (default): run the model's processes in the OS sandbox where it works; on: refuse to run without it; off (docs/sandbox.md)",
  },
  {
    flags: "--no-worktree",
    description: "work in the project directory itself instead of a worktree",
  },
  {
    flags: "--deliver",
    description:
      "the verified work goes to origin: a pushed branch and pull request, or with onSuccess merge origin's base branch (docs/queue.md#delivery)",
  },
  {
    flags: "--backend <kind>",
    description: `${BACKEND_KINDS.filter((kind) => kind !== "scripted").join(", ")} (overrides agent.json)`,
  },
  {
    flags: "--model <model>",
    description: "model for every step that names none of its own (overrides agent.json)",
  },
  {
    flags: "--runs-dir <dir>",
    description: "where run folders go (default: closer/runs inside the git folder)",
  },
  {
    flags: "--repo <owner/name>",
    description: "the GitHub repository (default: read from the origin remote)",
  },
  {
    flags: "--json",
    description: "print the result as one JSON line on stdout; progress stays on stderr",
  },
  { flags: "--verbose", description: "print more progress lines" },
  {
    flags: "--quiet",
    description: "print no progress, only how the run ended (and --json's line)",
  },
  {
    flags: "--heartbeat <seconds>",
    description:
      "without a terminal: print a line at least this often while the model or a check works (default 60)",
  },
];

/** What `closer run --help` shows after the options. */
export const RUN_HELP_AFTER = `
Agent parameters:
  Every parameter the agent declares in agent.json (parameters.<name>.flag) is accepted
  as an option of its own, typed as declared: --flag VALUE, --flag=VALUE, and for a
  boolean --flag or --no-flag. Required parameters must be given.

Examples:
  $ closer run iterator --issue 12                  issue #12 in worktree closer/issue-12
  $ closer run iterator --task "make the tests pass" --no-worktree
  $ closer run --agent iterator --task-file TASK.md --json
  $ closer run iterator --label ready --concurrency 3
  $ closer run iterator --resume 20300101-120000-ab12cd
  $ closer run iterator --resume 20300101-120000-ab12cd --reload-definition

GitHub: GITHUB_TOKEN is the token (never written to the run record), GITHUB_API_URL
the API base for GitHub Enterprise.

Exit codes: 0 completed; 1 ended without verified completion (also a GitHub rate limit
or an unreachable GitHub); 2 usage or configuration error (also GitHub 401/403/404);
3 unrecoverable backend error; 130 interrupted (Ctrl-C; press it twice to quit at once).`;
