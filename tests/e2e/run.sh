#!/usr/bin/env bash
# The package's browser and runtime tests, given a built pkg/ (scripts/build.sh) and the
# installed tools (scripts/setup.sh): starts the test MCP server and the example server on
# free ports, runs the package-contents check, the environment tests, the type checks, the
# dialog tests (its checks against the client's vectors, then the dialog in Chromium), the
# console e2e, the console's sign-in against a real authorization server (tests/auth-server/)
# and the framework entries (React hooks, AI SDK adapter), stops the servers by
# PID, and exits non-zero when anything failed.
# Screenshots and build output go to test-output/. NODE= picks the Node binary (default
# /usr/bin/node, Node 20).
set -uo pipefail
cd "$(dirname "$0")/../.."
NODE=${NODE:-/usr/bin/node}
export NODE

[ -f pkg/index.js ] && [ -f pkg/dialog/index.js ] && [ -f pkg/react.js ] && [ -f pkg/ai.js ] || { echo "pkg/ is not built: run scripts/build.sh first" >&2; exit 1; }
[ -x .venv/bin/python ] && [ -d node_modules/playwright-core ] || { echo "tools missing: run scripts/setup.sh first" >&2; exit 1; }

TMP=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server VAR script: starts the Python MCP server on a free port, exports VAR=<its URL>.
start_server() {
  local var=$1 script=$2 url=""
  .venv/bin/python "$script" --port 0 >"$TMP/$var.out" 2>"$TMP/$var.err" &
  pids+=($!)
  for _ in $(seq 200); do
    url=$(sed -n 's/^READY //p' "$TMP/$var.out" | head -1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "FAIL $script did not start:" >&2
    cat "$TMP/$var.err" >&2
    exit 1
  fi
  export "$var=$url"
}

start_server MCP_TEST_URL tests/servers/modern_server.py
start_server EXAMPLE_MCP_URL www/server/example_server.py
echo "test server:    $MCP_TEST_URL"
echo "example server: $EXAMPLE_MCP_URL"

# Two lanes at once (two cores: each step is CPU-bound in bursts, with a core idle between):
# the package, the environments, the types, the dialog and the frameworks (the test server, a
# static server), beside the console and its sign-in (the example server, which only they use,
# one after the other as before). Nothing here measures time against a bound tighter than
# seconds. Each step's output is kept and printed whole, in the order of STEPS.
status=0
STEPS=(
  "package contents (tests/env/pack.mjs)"
  "environments (tests/env/run.mjs)"
  "types (tests/types/check.mjs)"
  "dialog checks (tests/e2e/dialog-checks.mjs)"
  "dialog (tests/e2e/dialog.mjs)"
  "console e2e (tests/e2e/console.mjs)"
  "console sign-in e2e, real authorization server (tests/e2e/signin.mjs)"
  "React hooks (tests/frameworks/react.mjs)"
  "AI SDK adapter (tests/frameworks/ai.mjs)"
)
step() { # step <n> <command...>: STEPS[n], its output and exit status kept for the report
  local n=$1
  shift
  "$@" >"$TMP/step-$n.log" 2>&1
  echo $? >"$TMP/step-$n.rc"
}
{
  step 0 "$NODE" tests/env/pack.mjs
  step 1 "$NODE" tests/env/run.mjs
  step 2 "$NODE" tests/types/check.mjs
  step 3 "$NODE" tests/e2e/dialog-checks.mjs
  step 4 "$NODE" tests/e2e/dialog.mjs
  step 7 "$NODE" tests/frameworks/react.mjs
  step 8 "$NODE" tests/frameworks/ai.mjs
} &
pids+=($!)
{
  step 5 "$NODE" tests/e2e/console.mjs
  step 6 "$NODE" tests/e2e/signin.mjs
} &
pids+=($!)
wait "${pids[@]: -2}"
for n in "${!STEPS[@]}"; do
  echo "== ${STEPS[$n]}"
  cat "$TMP/step-$n.log" 2>/dev/null
  [ "$(cat "$TMP/step-$n.rc" 2>/dev/null)" = 0 ] || status=1
done

if [ $status = 0 ]; then echo "tests/e2e/run.sh: all passed"; else echo "tests/e2e/run.sh: FAILED" >&2; fi
exit $status
