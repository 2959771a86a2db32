#!/usr/bin/env bash
# THE test command of mcp-wasm-client (the README's `scripts/test.sh`; CI runs it through
# .ci/run). Idempotent; on a fresh Debian machine it installs what it needs first
# (scripts/setup.sh), then runs, failing fast, each section with a banner and its time:
#
#   setup            scripts/setup.sh
#   fmt              cargo fmt --all -- --check
#   clippy           cargo clippy --all-targets (native) and for wasm32, -D warnings (see CLIPPY_STRICT)
#   rustdoc          cargo doc --no-deps with -D warnings (intra-doc links)
#   native tests     cargo test (unit tests of the sans-IO core + tests/spec_examples.rs)
#   build            scripts/build.sh (the npm package in pkg/)
#   servers          two real Python MCP test servers (tests/servers/modern_server.py)
#   wasm: chromium   tests/wasm_browser.rs, wasm-bindgen-test-runner + ChromeDriver
#   wasm: node       tests/wasm_node.rs, wasm-bindgen-test-runner + Node
#   js: node         tests/js/run-node.mjs     (tests/js/suite.mjs on the built package)
#   js: chromium     tests/js/run-browser.mjs  (the same suite in headless Chromium)
#   js: ..., modern  the same two on the mcp-wasm-client/modern entry (--modern)
#   engines          tests/browsers/run.sh: the wasm tests, the JS suite, the fault suite and the
#                    lifecycle tests in Firefox ESR and
#                    WebKitGTK through WebDriver, the two engines in parallel (SKIP_ENGINES=1
#                    skips them, with a note)
#   schema           tests/js/validate-log.mjs: every request the client sent, checked
#                    against the official JSON Schemas (spec 2026-07-28, ext-tasks)
#   hooks            later stages, each run when present and executable (see HOOKS below)
#
# and a summary with the time of each section. Every output goes to test-output/<section>.log;
# on success only a summary line per section is printed, on failure the relevant part.
#
# Servers: the wasm tests get their server URL at compile time (MCP_WASM_TEST_URL through
# option_env!: a wasm test has no environment at run time in a browser), so their server
# listens on a FIXED port, MCP_WASM_TEST_PORT (default 38111): a stable URL keeps cargo from
# rebuilding the tests. When the default port is taken (another run on this machine), a free
# port is used instead and the two wasm test crates are rebuilt for it (~5 s).
# The JS suites' server takes a free port. Both are stopped by PID on exit, failure or
# interrupt included (SIGTERM, then SIGKILL after 5 s: uvicorn may ignore SIGTERM).
#
# Environment:
#   KEEP_GOING=1            run the remaining sections after a failure (still exits 1)
#   CLIPPY_STRICT=0         clippy warnings reported, not denied (default: -D warnings)
#   SKIP_SETUP=1            skip scripts/setup.sh (everything is installed already)
#   MCP_WASM_TEST_PORT=N    the wasm tests' server port (default 38111)
#   CHROMEDRIVER, CHROMIUM  default /usr/bin/chromedriver, /usr/bin/chromium
#   SKIP_ENGINES=1          no Firefox/WebKit section (and no install of them in setup)
#   VERBOSE=1               print every output in full
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/test-output
mkdir -p "$OUT"
# The script's own stdout/stderr, for the summary: a trap runs while the interrupted
# command's redirections are still in place. Children do not get these descriptors.
exec 3>&1 4>&2
touch "$OUT/.run-start" # outputs older than this are of an earlier run
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

KEEP_GOING=${KEEP_GOING:-0}
CLIPPY_STRICT=${CLIPPY_STRICT:-1}
VERBOSE=${VERBOSE:-0}
WASM_PORT=${MCP_WASM_TEST_PORT:-38111}
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NODE=${NODE:-node}

# Later stages plug in here: each is run (with MCP_TEST_SERVER_URL set to a running test
# server) when the file exists and is executable, and skipped with a note otherwise.
HOOKS=(
  tests/conformance/run.sh # the MCP conformance suite (client scenarios)
  tests/e2e/run.sh         # Playwright end-to-end tests of the agent console (www/)
  tests/runtimes/run.sh    # real runtimes: workerd, Deno, Bun, a Service Worker in Chromium (tests/runtimes/scenario.js)
  tests/legacy/run.sh      # legacy eras: server-everything (2025-11-25), Python SDK pinned/auto, HTTP+SSE
  tests/faults/run.sh      # fault-injection scenarios, limits, security, CORS (Node + Chromium)
  tests/lifecycle/run.sh   # tasks across reloads, tabs, a worker, hidden pages, offline (Playwright)
  bench/check-size.sh      # gzip size budget of the shipped client (bench/size-budget.json)
  fuzz/smoke.sh            # a short run of each fuzz target
)

# ------------------------------------------------------------------ sections and summary

C_B=$'\033[1;36m' C_G=$'\033[32m' C_R=$'\033[1;31m' C_Y=$'\033[33m' C_0=$'\033[0m'
[ -t 1 ] || { C_B='' C_G='' C_R='' C_Y='' C_0=''; }
RESULTS=()  # "status|title|seconds"
FAILED_LOGS=() # the logs of failed sections, for the summary's list of failed cases
NOTES=()
FAILURES=0
CURRENT=''
T_SECTION=0
T_ALL=$(date +%s%N)

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
secs() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); }
note() { NOTES+=("$*"); printf '%s  note: %s%s\n' "$C_Y" "$*" "$C_0"; }

begin() {
  CURRENT=$1
  T_SECTION=$(date +%s%N)
  printf '\n%s━━━ %s ━━━%s\n' "$C_B" "$CURRENT" "$C_0"
}
pass() {
  local ms; ms=$(ms_since "$T_SECTION")
  RESULTS+=("ok|$CURRENT|$ms")
  printf '%s✓ %s (%ss)%s\n' "$C_G" "$CURRENT" "$(secs "$ms")" "$C_0"
  CURRENT=''
}
fail() {
  local ms; ms=$(ms_since "$T_SECTION")
  RESULTS+=("FAILED|$CURRENT|$ms")
  FAILURES=$((FAILURES + 1))
  printf '%s✗ %s failed (%ss)%s\n' "$C_R" "$CURRENT" "$(secs "$ms")" "$C_0"
  CURRENT=''
  [ "$KEEP_GOING" = 1 ] || exit 1
}

# run <title> <log-name> <success-filter> <command...>: runs the command with its output in
# test-output/<log-name>.log; on success prints the lines matching the (grep -E) filter, on
# failure the filtered-out-of-noise tail of the log.
run() {
  local title=$1 log=$OUT/$2.log filter=$3
  shift 3
  begin "$title"
  local rc=0
  if [ "$VERBOSE" = 1 ]; then
    "$@" 2>&1 3>&- 4>&- | tee "$log" || rc=${PIPESTATUS[0]}
  else
    "$@" >"$log" 2>&1 3>&- 4>&- || rc=$?
  fi
  if [ $rc -eq 0 ]; then
    [ "$VERBOSE" = 1 ] || grep -E -- "$filter" "$log" | sed 's/^/  /' || true
    pass
  else
    if [ "$VERBOSE" != 1 ]; then
      # Failures: everything but the lines of passing cases, at most the last 150 lines.
      grep -v -E '^  ok  |^test .* \.\.\. ok$|^\s+Compiling |^\s+Checking ' "$log" | tail -n 150 | sed 's/^/  │ /'
    fi
    printf '  (exit %s; full output: %s)\n' "$rc" "${log#"$ROOT"/}"
    FAILED_LOGS+=("$log")
    fail
  fi
}

# ------------------------------------------------------------------ test servers

SERVER_PIDS=()
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  echo "  server $pid ignored SIGTERM for 5 s: SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do stop_pid "$pid"; done
  SERVER_PIDS=()
}

# start_server <name> <port (0 = free)>: starts tests/servers/modern_server.py, waits for its
# READY line and sets SERVER_URL.
start_server() {
  local name=$1 port=$2 ready=$OUT/server-$1.ready i
  if [ "$port" != 0 ] && (exec 5<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "  port $port (for the $name server) is in use" >&2
    return 1
  fi
  : >"$ready"
  .venv/bin/python tests/servers/modern_server.py --port "$port" >"$ready" 2>"$OUT/server-$name.log" 3>&- 4>&- &
  local pid=$!
  SERVER_PIDS+=("$pid")
  for i in $(seq 300); do
    if grep -q '^READY ' "$ready"; then
      SERVER_URL=$(sed -n 's/^READY //p' "$ready" | head -1)
      echo "  $name server: $SERVER_URL (pid $pid, log ${OUT#"$ROOT"/}/server-$name.log)"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "the $name server exited before it was ready:" >&2
      tail -n 30 "$OUT/server-$name.log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the $name server was not ready within 30 s" >&2
  return 1
}

# One line per browser engine: the cases passed and failed in it (wasm tests + JS suite;
# Chromium from its two sections' logs, Firefox and WebKit from tests/browsers/run.sh).
engine_lines() {
  local wasm js p=0 f=0 v n parts=()
  wasm=$(grep -E '^test result:' "$OUT/wasm-browser.log" 2>/dev/null | tail -1)
  js=$(grep -E '^chromium [^ ]+: [0-9]+ passed' "$OUT/js-chromium.log" 2>/dev/null | tail -1)
  [ -n "$wasm$js" ] || return 0
  local np nf
  for v in "wasm|$wasm" "js|$js"; do
    np=$(sed -n 's/.* \([0-9]*\) passed.*/\1/p' <<<"$v"); nf=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$v")
    p=$((p + ${np:-0})); f=$((f + ${nf:-0})); parts+=("${v%%|*} ${np:-0}/$((${np:-0} + ${nf:-0}))")
  done
  n=$(printf '%s, ' "${parts[@]}")
  printf '  %-7s %s\n' engine "chromium $(sed -n 's/^chromium \([^:]*\):.*/\1/p' <<<"$js"): $p passed, $f failed (${n%, })"
  for v in firefox webkit; do
    if [ -f "$OUT/browsers/$v.summary" ] && [ "$OUT/browsers/$v.summary" -nt "$OUT/.run-start" ]; then
      printf '  %-7s %s\n' engine "$(cat "$OUT/browsers/$v.summary")"
    fi
  done
}

# The failed cases of the failed sections, by name, at the end of the summary: CI keeps only
# the tail of the output, and a section's failure block scrolls out of it.
failed_cases() {
  local log line
  for log in "${FAILED_LOGS[@]}"; do
    grep -E '^ *FAIL\b|^test .* FAILED$|^(firefox|webkit) [a-z -]+: (FAILED|no result)' "$log" 2>/dev/null | head -n 12 |
      while IFS= read -r line; do printf '  %sfailed%s %s: %s\n' "$C_R" "$C_0" "$(basename "$log" .log)" "${line:0:300}"; done
  done
}

summary() {
  local rc=$1 r status title ms
  if [ -n "$CURRENT" ]; then # a section was cut short (an error in this script, or a signal)
    RESULTS+=("FAILED|$CURRENT|$(ms_since "$T_SECTION")")
    FAILURES=$((FAILURES + 1))
  fi
  stop_servers
  printf '\n%s━━━ summary ━━━%s\n' "$C_B" "$C_0"
  for r in "${RESULTS[@]}"; do
    IFS='|' read -r status title ms <<<"$r"
    if [ "$status" = ok ]; then
      printf '  %s%-7s%s %-34s %7ss\n' "$C_G" "$status" "$C_0" "$title" "$(secs "$ms")"
    else
      printf '  %s%-7s%s %-34s %7ss\n' "$C_R" "$status" "$C_0" "$title" "$(secs "$ms")"
    fi
  done
  engine_lines
  failed_cases
  for r in "${NOTES[@]}"; do printf '  %snote:%s %s\n' "$C_Y" "$C_0" "$r"; done
  local total; total=$(secs "$(ms_since "$T_ALL")")
  if [ "$rc" -eq 0 ] && [ "$FAILURES" -eq 0 ]; then
    printf '%sall %d sections passed in %ss%s\n' "$C_G" "${#RESULTS[@]}" "$total" "$C_0"
  else
    printf '%sFAILED: %d section(s) failed (total %ss); outputs in %s/%s\n' "$C_R" "$FAILURES" "$total" "${OUT#"$ROOT"/}" "$C_0"
  fi
}
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  summary "$rc" >&3 2>&4
  if [ "$rc" -eq 0 ] && [ "$FAILURES" -ne 0 ]; then rc=1; fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------------ a. setup, format, lint

if [ "${SKIP_SETUP:-0}" = 1 ]; then
  note "setup skipped (SKIP_SETUP=1)"
else
  run "setup" setup 'setup complete' scripts/setup.sh
fi

run "fmt" fmt '.^' cargo fmt --all -- --check

clippy() {
  local deny=()
  [ "$CLIPPY_STRICT" = 1 ] && deny=(-- -D warnings)
  cargo clippy --all-targets "${deny[@]}" || return $?
  cargo clippy --target wasm32-unknown-unknown --all-targets "${deny[@]}" || return $?
  # The modern-only build (mcp-wasm-client/modern: the `legacy` feature off).
  cargo clippy --all-targets --no-default-features "${deny[@]}" || return $?
  cargo clippy --target wasm32-unknown-unknown --lib --no-default-features "${deny[@]}" || return $?
}
run "clippy" clippy 'generated [0-9]+ warning' clippy
# rustdoc of the public items: no broken or private intra-doc links.
run "rustdoc" rustdoc '.^' env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
if [ "$CLIPPY_STRICT" != 1 ]; then
  CLIPPY_WARNINGS=$(grep -E '^warning(\[[^]]*\])?: ' "$OUT/clippy.log" | grep -cvE 'generated [0-9]+ warnings?|build failed' || true)
  if [ "${CLIPPY_WARNINGS:-0}" != 0 ]; then
    note "clippy: ${CLIPPY_WARNINGS} warnings, not denied (CLIPPY_STRICT=0)"
  fi
fi

# ------------------------------------------------------------------ b. native tests, c. build

run "native tests (cargo test)" cargo-test '^test result:' cargo test
run "native tests, modern-only (cargo test --no-default-features)" cargo-test-modern '^test result:' cargo test --no-default-features

run "build pkg/ (scripts/build.sh)" build 'pkg/ ready' scripts/build.sh

# ------------------------------------------------------------------ d. servers

begin "servers"
if ! start_server wasm "$WASM_PORT"; then
  if [ -n "${MCP_WASM_TEST_PORT:-}" ]; then
    echo "the wasm tests' server could not listen on MCP_WASM_TEST_PORT=$WASM_PORT" >&2
    exit 1
  fi
  start_server wasm 0
  note "port $WASM_PORT was taken: the wasm tests use $SERVER_URL (rebuilt for it)"
fi
WASM_SERVER_URL=$SERVER_URL
export MCP_WASM_TEST_URL=$WASM_SERVER_URL
start_server js 0
JS_SERVER_URL=$SERVER_URL
export MCP_TEST_SERVER_URL=$JS_SERVER_URL
pass

# ------------------------------------------------------------------ e. wasm-bindgen tests

cat >"$OUT/webdriver.json" <<EOF
{
  "goog:chromeOptions": {
    "binary": "$CHROMIUM",
    "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
  }
}
EOF
wasm_test() {
  WASM_BINDGEN_TEST_WEBDRIVER_JSON="$OUT/webdriver.json" \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    cargo test --target wasm32-unknown-unknown --test "$1"
}
run "wasm: chromium (wasm_browser)" wasm-browser '^test result:' wasm_test wasm_browser
run "wasm: node (wasm_node)" wasm-node '^test result:' wasm_test wasm_node

# ------------------------------------------------------------------ f. the JS suite

run "js: node (tests/js)" js-node '^node: |XFAIL|XPASS' "$NODE" tests/js/run-node.mjs "$JS_SERVER_URL"
run "js: chromium (tests/js)" js-chromium '^chromium |XFAIL|XPASS' "$NODE" tests/js/run-browser.mjs "$JS_SERVER_URL"
# The same suite on the mcp-wasm-client/modern entry (pkg/modern/): its legacy-era cases are
# counted as not applicable.
run "js: node, modern entry (tests/js)" js-node-modern '^node |XFAIL|XPASS|N/A' "$NODE" tests/js/run-node.mjs "$JS_SERVER_URL" --modern
run "js: chromium, modern entry (tests/js)" js-chromium-modern '^chromium |XFAIL|XPASS|N/A' "$NODE" tests/js/run-browser.mjs "$JS_SERVER_URL" --modern
# Firefox ESR and WebKitGTK (issue 18): the same wasm tests and JS suite through WebDriver.
if [ "${SKIP_ENGINES:-0}" = 1 ]; then
  note "firefox and webkit not run (SKIP_ENGINES=1)"
else
  run "engines: firefox, webkit (tests/browsers)" engines '^(firefox|webkit) |XFAIL|NOT RUN|RETRY' tests/browsers/run.sh
fi
run "schema: recorded requests" schema '^schema: ' "$NODE" tests/js/validate-log.mjs "$JS_SERVER_URL" "$WASM_SERVER_URL"

# ------------------------------------------------------------------ g. hooks (later stages)

for hook in "${HOOKS[@]}"; do
  if [ -x "$hook" ]; then
    run "hook: $hook" "hook-$(basename "$(dirname "$hook")")-$(basename "$hook" .sh)" '.' "$hook"
  else
    note "hook $hook: not present, skipped"
  fi
done

stop_servers
