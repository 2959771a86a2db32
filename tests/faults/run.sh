#!/usr/bin/env bash
# The fault-injection suite (RELIABILITY.md "Fault-injection scenarios"), given a built pkg/
# (scripts/build.sh) and the installed tools (scripts/setup.sh): starts the fault server
# (tests/faults/server.mjs) on a free port, runs tests/faults/suite.mjs in Node and in
# headless Chromium (the tests/js runners with --suite), stops the server by PID, and exits
# non-zero when anything failed. A hook of scripts/test.sh.
#
#   tests/faults/run.sh [--only <regexp>]     NODE= picks the Node binary (default: node)
#
# Outputs: test-output/faults-{node,chromium,server}.log (VERBOSE=1 prints every line).
set -uo pipefail
cd "$(dirname "$0")/../.."
NODE=${NODE:-node}
ONLY=()
[ "${1:-}" = --only ] && ONLY=(--only "$2")

[ -f pkg/index.js ] || { echo "pkg/ is not built: run scripts/build.sh first" >&2; exit 1; }
[ -d node_modules/playwright-core ] || { echo "tools missing: run scripts/setup.sh first" >&2; exit 1; }
mkdir -p test-output
T0=$(date +%s%N)

READY_FILE=$(mktemp)
"$NODE" tests/faults/server.mjs --port 0 >"$READY_FILE" 2>test-output/faults-server.log &
PID=$!
cleanup() {
  kill -TERM "$PID" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$PID" 2>/dev/null
  wait "$PID" 2>/dev/null
  rm -f "$READY_FILE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

URL=""
for _ in $(seq 100); do
  URL=$(sed -n 's/^READY //p' "$READY_FILE" | head -1)
  [ -n "$URL" ] && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "the fault server did not start:" >&2
  cat test-output/faults-server.log >&2
  exit 1
fi
echo "fault server: $URL (pid $PID)"

status=0
# suite <name> <runner>: runs the suite with one runner; its full output goes to
# test-output/faults-<name>.log; printed: the summary line, and every failure in full.
suite() {
  local name=$1 runner=$2 log=test-output/faults-$1.log rc=0
  echo "== faults: $name (full output: $log)"
  "$NODE" "$runner" "$URL" --suite tests/faults/suite.mjs "${ONLY[@]}" >"$log" 2>&1 || rc=$?
  if [ "${VERBOSE:-0}" = 1 ] || [ $rc != 0 ]; then
    grep -vE '^  (ok|skip) ' "$log"
  else
    grep -E '^(node|chromium)' "$log"
  fi
  [ $rc = 0 ] || status=1
}
suite node tests/js/run-node.mjs
suite chromium tests/js/run-browser.mjs

secs=$(( ($(date +%s%N) - T0) / 1000000 ))
if [ $status = 0 ]; then
  echo "tests/faults/run.sh: all passed ($((secs / 1000)).$(((secs % 1000) / 100)) s)"
else
  echo "tests/faults/run.sh: FAILED ($((secs / 1000)).$(((secs % 1000) / 100)) s)" >&2
fi
exit $status
