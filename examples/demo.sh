#!/usr/bin/env bash
# The README demo (`npm run demo`): `closer demo` of the CLI built in this
# checkout, the bundled example agent on a fresh copy of the bundled example
# repo (docs/cli.md#demo). Live with Claude credentials; otherwise a recorded
# session through the replay backend. The checks (node's test runner, git) run
# for real either way. CLOSER_DEMO_BACKEND=replay or =live chooses instead
# (live for a Claude Code login kept where closer does not look, such as the
# macOS keychain).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# The closing lines name closer as this checkout runs it.
export CLOSER_DEMO_COMMAND="${CLOSER_DEMO_COMMAND:-node dist/bin/closer.js}"
exec node "$root/dist/bin/closer.js" demo
