#!/usr/bin/env bash
# Hook of scripts/test.sh: the package in real runtimes (workerd, Deno, Bun, a Service Worker
# in Chromium), each running tests/runtimes/scenario.js against the test server named by
# MCP_TEST_SERVER_URL (started by tests/runtimes/run.mjs when unset). One PASS/FAIL line per
# runtime; exits non-zero when one failed or could not start. RUNTIMES=deno,bun runs some.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f pkg/load.js ] || { echo "pkg/ is not built: run scripts/build.sh first" >&2; exit 1; }
exec "${NODE:-node}" tests/runtimes/run.mjs "$@"
