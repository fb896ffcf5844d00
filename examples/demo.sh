#!/usr/bin/env bash
# The README demo: the bundled example agent on a fresh copy of the bundled
# example repo (a slugify function whose tests fail). Live with Claude
# credentials; otherwise a recorded session through the replay backend. The
# checks (node's test runner, git) run for real either way.
# CLOSER_DEMO_BACKEND=replay or =live chooses instead (live for a Claude Code
# login kept where this script does not look, such as the macOS keychain).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/closer-demo.XXXXXX")"
cp -R "$root/examples/example-repo/." "$work/"
git -C "$work" init -q -b main
git -C "$work" add -A
git -C "$work" -c user.name="closer demo" -c user.email=demo@example.invalid commit -qm "Example repo"

has_credentials() {
  [[ -n "${ANTHROPIC_API_KEY:-}${ANTHROPIC_AUTH_TOKEN:-}${CLAUDE_CODE_OAUTH_TOKEN:-}" ]] ||
    [[ -f "${HOME:-/nonexistent}/.claude/.credentials.json" ]]
}

backend=()
choice="${CLOSER_DEMO_BACKEND:-}"
if [[ "$choice" == "replay" ]] || { [[ "$choice" != "live" ]] && ! has_credentials; }; then
  if [[ "$choice" == "replay" ]]; then
    echo "closer demo: CLOSER_DEMO_BACKEND=replay, so the model's answers are replayed from a" >&2
  else
    echo "closer demo: no Claude credentials found, so the model's answers are replayed from a" >&2
  fi
  echo "recorded session (examples/example-repo/.agent/example/recorded/demo-session.json)." >&2
  echo "The checks below are real: node --test and git run in $work." >&2
  echo >&2
  backend=(--backend replay)
else
  echo "closer demo: running the agent live (Claude Code, through the Agent SDK) in $work." >&2
  echo >&2
fi

status=0
node "$root/dist/bin/closer.js" run example --cwd "$work" --task-file "$work/TASK.md" \
  --no-worktree "${backend[@]}" || status=$?
echo >&2
echo "closer demo: the repository the agent worked on is $work (git log shows its commits)." >&2
echo "See what the run did: its iterations, checks, retries and cost by reason, in the terminal or as one HTML file:" >&2
echo "  node dist/bin/closer.js show last --cwd $work" >&2
echo "  node dist/bin/closer.js report last --cwd $work" >&2
exit "$status"
