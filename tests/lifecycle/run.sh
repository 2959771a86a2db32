#!/usr/bin/env bash
# Tasks across the browser's lifecycle (issue 13): reloads, several tabs, a worker, hidden
# pages, offline, OAuth refresh across tabs. Playwright in Chromium against the Python
# tasks server (tests/servers/modern_server.py) and, where a fault is needed, servers of
# our own. Runs every tests/lifecycle/*.test.mjs in turn; exits non-zero when one failed.
# Given a built pkg/ (scripts/build.sh) and the installed tools (scripts/setup.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
NODE=${NODE:-/usr/bin/node}
[ -f pkg/index.js ] || { echo "pkg/ is not built: run scripts/build.sh first" >&2; exit 1; }
[ -x .venv/bin/python ] && [ -d node_modules/playwright-core ] || { echo "tools missing: run scripts/setup.sh first" >&2; exit 1; }
status=0
for t in tests/lifecycle/*.test.mjs; do
  [ -e "$t" ] || continue
  echo "== $t"
  "$NODE" "$t" || status=1
done
if [ $status = 0 ]; then echo "tests/lifecycle/run.sh: all passed"; else echo "tests/lifecycle/run.sh: FAILED" >&2; fi
exit $status
